import { expect, it } from 'vitest';
import { StateVersionsSource } from './state-versions.js';

/** A state_versions row in memory, counting the reads that reach it. */
function fakeDatabase() {
  const row = { policies: 1n, apiKeys: 1n, userRoles: 1n };
  const reads = { count: 0 };
  const rows = {
    read: async () => {
      reads.count++;
      return { ...row };
    },
    bump: async (which: keyof typeof row) => {
      row[which]++;
    },
  };
  return { rows, reads };
}

it('reads for every call that comes after the last read finished', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows);
  await source.current();
  await source.current();
  await source.current();
  expect(reads.count).toBe(3);
});

it('inside a transaction, reads on its own: its uncommitted bumps are shared with no one', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows, () => true);
  await Promise.all([source.current(), source.current(), source.current()]);
  expect(reads.count).toBe(3);
});
