import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const ENTRIES = 500;

/** `POST /v1/logs` of `body` under one `Idempotency-Key`, as a client retrying it sends it. */
const ingestOnce = (url: string, key: string, idempotencyKey: string, body: string) =>
  fetch(`${url}/v1/logs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body,
  });

/**
 * docs/idempotency.md: the claim of an `Idempotency-Key`, the work and the kept response commit
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
    const ingest = (url: string) => ingestOnce(url, key, idempotencyKey, body);
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
      expect(await replay.json()).toEqual(
        await retry.json().then((b) => ({ ...(b as object), meta: expect.anything() })),
      );
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

/** The newest write to the embedded PostgreSQL's write-ahead log. */
async function lastWalWrite(dataDir: string): Promise<number> {
  const wal = join(dataDir, 'postgres', 'pg_wal');
  const files = await readdir(wal);
  const times = await Promise.all(
    files.map((f) => stat(join(wal, f)).then((s) => (s.isFile() ? s.mtimeMs : 0))),
  );
  return Math.max(0, ...times);
}

describe('kill -9 during an ingest under an Idempotency-Key, embedded', {
  timeout: 180_000,
}, () => {
  it('leaves nothing or everything, and the same request then ingests exactly once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-crash-'));
    const key = generateSecret();
    const env = { SECADMIN_DATA_DIR: dataDir, SECADMIN_ADMIN_API_KEY: key };
    const event = `crash.ingest_${Date.now()}`;
    const idempotencyKey = `crash-${Date.now()}`;
    // Near the 10 MiB bound: the work takes long enough to be caught in the middle.
    const body = JSON.stringify({
      entries: Array.from({ length: 1000 }, (_, i) => ({
        event,
        actor: { id: `user_${i}`, type: 'user' },
        result: 'success',
        metadata: { note: 'x'.repeat(9000) },
      })),
    });
    const ingest = (url: string) => ingestOnce(url, key, idempotencyKey, body);
    let server = await spawnServer(env);
    try {
      const before = await lastWalWrite(dataDir);
      const answer = ingest(server.url).then(
        (res) => res.status,
        () => 'no answer',
      );
      // Killed as soon as the request writes to the database (old code: its claim).
      await waitFor('the ingest to write', async () => (await lastWalWrite(dataDir)) > before);
      await server.kill9();
      const answered = await answer;

      server = await spawnServer(env);
      const search = async () => {
        const res = await fetch(`${server.url}/v1/logs?events=${event}&limit=1000`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return ((await res.json()) as { data: unknown[] }).data.length;
      };
      const afterCrash = await search();
      // Nothing, or (if the kill came after the commit) everything.
      expect([0, 1000]).toContain(afterCrash);
      const retry = await ingest(server.url);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed') === 'true').toBe(afterCrash === 1000);
      expect(await search()).toBe(1000);
      // An acknowledged ingest is never lost.
      expect(answered !== 201 || afterCrash === 1000).toBe(true);
    } finally {
      await server.dispose();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
