import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { stopAfterWriteFailure } from '../src/embedded-failure.js';
import { openDatabase } from '../src/index.js';
import { freshDataDir } from './test-databases.js';

interface Module {
  _CritSectionCount: number;
  getValue(address: number, type: 'i32'): number;
  setValue(address: number, value: number, type: 'i32'): void;
}
const moduleOf = (pglite: PGlite) => (pglite as unknown as { mod: Module }).mod;

// The wedge itself needs a full disk (test/faults/disk-full.test.ts in the server); here the
// state it leaves, an open critical section, is set by hand.
describe('stopAfterWriteFailure', () => {
  it('lets ordinary errors through and keeps the instance in use', async () => {
    const pglite = await PGlite.create();
    const failures: unknown[] = [];
    const { failed } = stopAfterWriteFailure(pglite, (error) => failures.push(error));
    await pglite.exec('CREATE TABLE t (id int PRIMARY KEY)');
    await pglite.query('INSERT INTO t VALUES (1)');
    await expect(pglite.query('INSERT INTO t VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    expect((await pglite.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
    expect(failed()).toBe(false);
    expect(failures).toEqual([]);
    await pglite.close();
  });

  it('after an error that leaves a critical section open, never calls PGlite again', async () => {
    const pglite = await PGlite.create();
    const mod = moduleOf(pglite);
    const failures: [unknown, number | undefined][] = [];
    const { failed } = stopAfterWriteFailure(pglite, (error, sections) =>
      failures.push([error, sections]),
    );
    mod.setValue(mod._CritSectionCount, 2, 'i32');
    await expect(pglite.query('SELECT * FROM missing')).rejects.toMatchObject({ code: '57P03' });
    expect(failed()).toBe(true);
    expect(failures).toEqual([[expect.objectContaining({ code: '42P01' }), 2]]);

    mod.setValue(mod._CritSectionCount, 0, 'i32');
    await expect(pglite.query('SELECT 1')).rejects.toMatchObject({ code: '57P03' });
    await expect(pglite.exec('SELECT 1')).rejects.toMatchObject({ code: '57P03' });
    await expect(pglite.transaction((tx) => tx.query('SELECT 1'))).rejects.toMatchObject({
      code: '57P03',
    });
    expect(failures).toHaveLength(1);
  });

  it.each(['53100', '58030'])(
    'after a disk_full or io_error (%s) with no critical section open, never calls PGlite again',
    async (code) => {
      const pglite = await PGlite.create();
      const failures: [unknown, number | undefined][] = [];
      const { failed } = stopAfterWriteFailure(pglite, (error, sections) =>
        failures.push([error, sections]),
      );
      // What a failed extension of a data file reports: PGlite itself stays usable.
      const raise = `DO $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = '${code}'; END $$`;
      await expect(pglite.exec(raise)).rejects.toMatchObject({ code: '57P03' });
      expect(failed()).toBe(true);
      expect(failures).toEqual([[expect.objectContaining({ code }), 0]]);
      await expect(pglite.query('SELECT 1')).rejects.toMatchObject({ code: '57P03' });
      expect(failures).toHaveLength(1);
    },
  );
});

/**
 * Issue 41: a full disk crashed the process with an uncaught DatabaseError. A transaction whose
 * statement stops the instance is rolled back by pglite-prisma-adapter, which calls
 * `rollback()` without awaiting it: its 57P03 was an unhandled rejection.
 */
it('a transaction that stops the instance fails with 57P03, and leaves no unhandled rejection', async () => {
  const data = await freshDataDir();
  const failures: unknown[] = [];
  const db = await openDatabase({
    dataDir: data.dir,
    onEmbeddedFailure: (error) => failures.push(error),
  });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const raise = `DO $$ BEGIN RAISE EXCEPTION 'could not write to file' USING ERRCODE = '53100'; END $$`;
    await expect(
      db.transaction(async (tx) => {
        await tx.$executeRawUnsafe(raise);
      }),
    ).rejects.toBeDefined();
    expect(failures).toHaveLength(1);
    await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: '57P03' });
    // An unhandled rejection is reported after the microtasks of the turn it happened in.
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await db.close();
    await data.remove();
  }
});
