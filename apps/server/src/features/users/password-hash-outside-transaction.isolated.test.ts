import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const hooks = vi.hoisted(() => ({ beforeHash: undefined as (() => Promise<void>) | undefined }));
vi.mock('../../lib/password.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/password.js')>();
  return {
    ...original,
    hashPassword: async (password: string) => {
      await hooks.beforeHash?.();
      return original.hashPassword(password);
    },
  };
});

/**
 * Issue 20, L-c: a user's password was hashed (scrypt, a tenth of a second) inside the
 * transaction of its creation, which under an `Idempotency-Key` opens before the handler runs;
 * on the embedded database that transaction holds the one connection meanwhile. Seen on
 * PostgreSQL, where an open transaction shows in `pg_stat_activity`; the embedded database
 * shows none, and the code path is the same.
 */
describe('a new user’s password', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('is hashed before any transaction of the request opens', async () => {
    const openTransactions: number[] = [];
    hooks.beforeHash = async () => {
      const client = new pg.Client({ connectionString: server.config.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        );
        openTransactions.push(rows[0]?.n ?? -1);
      } finally {
        await client.end();
      }
    };
    const { response } = await server.client.POST('/v1/users', {
      body: { email: 'ada@example.com', password: 'correct horse battery staple' },
      params: { header: { 'Idempotency-Key': 'create-ada' } },
    });
    expect(response.status).toBe(201);
    expect(openTransactions).toEqual([0]);
  });
});
