import { expect, it } from 'vitest';
import type { Db } from '../../src/repositories/db.js';
import { StateVersionsSource } from '../../src/services/state-versions.js';

/** A state_versions row in memory, counting the reads that reach it. */
function fakeDatabase() {
  const row = { policies: 1, apiKeys: 1, userRoles: 1 };
  const reads = { count: 0 };
  const query = async <T>() => {
    reads.count++;
    return [{ ...row }] as T[];
  };
  const db = {
    $executeRawUnsafe: async (sql: string) => {
      if (sql.includes('SET policies')) row.policies++;
      return 1;
    },
  } as unknown as Db;
  return { query, db, reads };
}

it('as the only writer, reads once and again only after its own bump', async () => {
  const { query, db, reads } = fakeDatabase();
  const source = new StateVersionsSource(query, true);
  expect((await source.current()).policies).toBe(1n);
  await source.current();
  await source.current();
  expect(reads.count).toBe(1);
  await source.bump(db, 'policies');
  expect((await source.current()).policies).toBe(2n);
  expect(reads.count).toBe(2);
});

it('does not keep a read that was in flight when the bump came', async () => {
  const { query, db, reads } = fakeDatabase();
  const source = new StateVersionsSource(query, true);
  const before = source.current();
  await source.bump(db, 'policies');
  await before;
  expect((await source.current()).policies).toBe(2n);
  expect(reads.count).toBe(2);
});

it('with other writers, reads for every call that comes after the last read finished', async () => {
  const { query, reads } = fakeDatabase();
  const source = new StateVersionsSource(query, false);
  await source.current();
  await source.current();
  await source.current();
  expect(reads.count).toBe(3);
});
