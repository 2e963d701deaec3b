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

it('as the only writer, reads once and again only after its own bump', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows, true);
  expect((await source.current()).policies).toBe(1n);
  await source.current();
  await source.current();
  expect(reads.count).toBe(1);
  await source.bump('policies');
  expect((await source.current()).policies).toBe(2n);
  expect(reads.count).toBe(2);
});

it('does not keep a read that was in flight when the bump came', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows, true);
  const before = source.current();
  await source.bump('policies');
  await before;
  expect((await source.current()).policies).toBe(2n);
  expect(reads.count).toBe(2);
});

it('with other writers, reads for every call that comes after the last read finished', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows, false);
  await source.current();
  await source.current();
  await source.current();
  expect(reads.count).toBe(3);
});
