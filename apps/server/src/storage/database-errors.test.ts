import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';
import { Unavailable } from '../lib/errors.js';
import { mapDatabaseErrors } from './database-errors.js';

/**
 * An outside attack: an ingest that ran past the transaction's time limit answered 500, and
 * its statements after Prisma's rollback committed one by one (part of the batch kept, and
 * again on the retry).
 */
describe('a transaction past its time limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.db.query('CREATE TABLE overtime_probe (id int PRIMARY KEY)');
  });
  afterAll(() => server?.stop());

  it('is a 503 that kept nothing, not a 500 that kept part', async () => {
    const db = mapDatabaseErrors(server.db);
    const failure = await db
      .transaction(
        async (_tx, query) => {
          await query('INSERT INTO overtime_probe VALUES (1)');
          // Outlasts the time limit by far: Prisma rolls back meanwhile.
          await query('SELECT pg_sleep(2)');
          await query('INSERT INTO overtime_probe VALUES (2)');
        },
        { timeout: 50 },
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Unavailable);
    expect((failure as Unavailable).message).toMatch(/did not finish this request in time/);
    expect(await server.db.query('SELECT id FROM overtime_probe')).toEqual([]);
  });

  // A security review: a slow scan's statement ran on after its request had given up. One that
  // PostgreSQL stops at its `statement_timeout` (query_canceled) is a 503 that says so.
  it('stopped at its statement_timeout, is a 503 that says what to do, not a 500', async () => {
    const db = mapDatabaseErrors(server.db);
    const failure = await db
      .transaction(async (_tx, query) => {
        await query('SET LOCAL statement_timeout = 50');
        await query('SELECT pg_sleep(5)');
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Unavailable);
    expect((failure as Unavailable).message).toMatch(
      /did not finish this request within its time bound.*narrower time range or query/,
    );
  });
});
