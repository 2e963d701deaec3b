import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/index.js';
import { freshPostgres } from './test-databases.js';

describe('PostgreSQL sessions of the pool', () => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch = await freshPostgres();
    drop = scratch.drop;
    db = await openDatabase({ url: scratch.url, dataDir: '/nonexistent', poolSize: 3 });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('run without JIT compilation, on every connection, in and out of transactions', async () => {
    const settings = await Promise.all(
      Array.from({ length: 3 }, () => db.query<{ jit: string }>('SHOW jit')),
    );
    expect(settings.map(([row]) => row?.jit)).toEqual(['off', 'off', 'off']);
    const inTransaction = await db.transaction(async (_tx, sql) =>
      sql<{ jit: string }>('SHOW jit'),
    );
    expect(inTransaction[0]?.jit).toBe('off');
  });
});
