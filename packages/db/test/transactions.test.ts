import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/index.js';
import { freshDataDir, freshPostgres } from './test-databases.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const databases = {
  embedded: async () => {
    const data = await freshDataDir();
    const db = await openDatabase({ dataDir: data.dir });
    return { db, remove: data.remove };
  },
  postgres: async () => {
    const scratch = await freshPostgres();
    const db = await openDatabase({ url: scratch.url, dataDir: '/nonexistent' });
    return { db, remove: scratch.drop };
  },
};

describe.each(Object.keys(databases) as (keyof typeof databases)[])(
  'transactions on %s',
  (kind) => {
    let db: Database;
    let remove: () => Promise<void>;
    beforeAll(async () => {
      ({ db, remove } = await databases[kind]());
      await db.query('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)');
    });
    afterAll(async () => {
      await db?.close();
      await remove?.();
    });

    it("run plain SQL on the transaction's connection: it sees the work and rolls back with it", async () => {
      const undone = new Error('undo');
      await expect(
        db.transaction(async (tx, query) => {
          await tx.$executeRawUnsafe("INSERT INTO notes VALUES (1, 'by prisma')");
          await query("INSERT INTO notes VALUES (2, 'by the driver')");
          expect(await query('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
          throw undone;
        }),
      ).rejects.toBe(undone);
      expect(await db.query('SELECT id FROM notes')).toEqual([]);
    });

    it('fail when COMMIT fails: work is never answered as done and then lost', async () => {
      await db.query(
        'CREATE TABLE deferred_notes (id int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED)',
      );
      // The duplicate passes each INSERT and fails only at COMMIT.
      await expect(
        db.transaction(async (_tx, query) => {
          await query('INSERT INTO deferred_notes VALUES (1)');
          await query('INSERT INTO deferred_notes VALUES (1)');
        }),
      ).rejects.toThrow();
      expect(await db.query('SELECT id FROM deferred_notes')).toEqual([]);
      // And the connection is fine afterwards.
      await db.transaction(async (_tx, query) => query('INSERT INTO deferred_notes VALUES (2)'));
      expect(await db.query('SELECT id FROM deferred_notes')).toEqual([{ id: 2 }]);
    });

    it('send nothing more once Prisma ended the transaction on its timeout', async () => {
      await expect(
        db.transaction(
          async (_tx, query) => {
            await query("INSERT INTO notes VALUES (300, 'before the timeout')");
            // Outlasts the timeout by far: Prisma rolls back meanwhile.
            await query('SELECT pg_sleep(2)');
            await query("INSERT INTO notes VALUES (301, 'after the timeout')");
          },
          { timeout: 50 },
        ),
      ).rejects.toThrow();
      expect(await db.query('SELECT id FROM notes WHERE id >= 300')).toEqual([]);
    });

    // Through Prisma's raw queries, its debug module keeps the parameters of the last 100 calls.
    it('keep nothing of the parameters of their plain SQL once done', async () => {
      const before = liveHeapMb();
      // What is measured is the heap, not time: a loaded machine may take longer than Prisma's
      // default 5 s limit on a transaction for one 8 MB insert.
      for (let i = 0; i < 4; i++)
        await db.transaction(
          async (_tx, query) => {
            await query('INSERT INTO notes VALUES ($1, $2)', [
              100 + i,
              `${'x'.repeat(8_000_000)}${i}`,
            ]);
          },
          { timeout: 120_000 },
        );
      // 4 parameters of 8 MB each: all of them stayed reachable before.
      expect(liveHeapMb() - before).toBeLessThan(12);
    });
  },
);
