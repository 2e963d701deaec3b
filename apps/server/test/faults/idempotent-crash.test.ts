import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/server.js';
import { waitFor } from './traffic.js';

const ENTRIES = 500;

/**
 * decisions.md §11: the claim of an `Idempotency-Key`, the work and the kept response commit
 * together, so a crash at any point leaves either nothing or all of it.
 */
describe('kill -9 during an ingest under an Idempotency-Key, PostgreSQL', {
  timeout: 180_000,
}, () => {
  it('leaves nothing behind, and the same request then ingests exactly once', async () => {
    const database = await createTestDatabase();
    const key = generateSecret();
    const env = { DATABASE_URL: database.url, SECADMIN_ADMIN_API_KEY: key };
    const event = `crash.ingest_${Date.now()}`;
    const idempotencyKey = `crash-${Date.now()}`;
    const body = JSON.stringify({
      entries: Array.from({ length: ENTRIES }, (_, i) => ({
        event,
        actor: { id: `user_${i}`, type: 'user' },
        result: 'success',
      })),
    });
    const ingest = (url: string) =>
      fetch(`${url}/v1/logs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        body,
      });
    const count = async (sql: string, params: unknown[]) =>
      (await database.query<{ n: number }>(sql, params))[0]?.n;
    const entries = () =>
      count('SELECT count(*)::int AS n FROM log_entries WHERE event = $1', [event]);
    const kept = () =>
      count('SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = $1', [
        idempotencyKey,
      ]);

    // The test holds a lock that the ingest's INSERT waits for: the server is killed while its
    // request is stopped mid-work, at a known point, after it took its claim.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    let server = await spawnServer(env);
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE log_entries IN SHARE MODE');
      const answer = ingest(server.url).then(
        (res) => res.status,
        () => 'no answer',
      );
      await waitFor('the ingest to wait for the lock', async () =>
        Boolean(
          await count(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'
               AND query LIKE '%INSERT INTO log_entries%'`,
            [],
          ),
        ),
      );
      await server.kill9();
      expect(await answer).toBe('no answer');
      await blocker.query('ROLLBACK');
      // The killed server's session finishes what it can: nothing of it may stay committed.
      await waitFor(
        'the killed session to end',
        async () =>
          (await count(
            `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND query LIKE '%INSERT INTO log_entries%'
             AND pid <> pg_backend_pid()`,
            [],
          )) === 0,
      );
      expect({ entries: await entries(), kept: await kept() }).toEqual({ entries: 0, kept: 0 });

      server = await spawnServer(env);
      const retry = await ingest(server.url);
      expect(retry.status).toBe(201);
      const replay = await ingest(server.url);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(await retry.json().then((b) => ({ ...(b as object), meta: expect.anything() })));
      expect({ entries: await entries(), kept: await kept() }).toEqual({
        entries: ENTRIES,
        kept: 1,
      });
    } finally {
      await blocker.end().catch(() => {});
      await server.kill9();
      await database.drop();
    }
  });
});
