import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeClusterHome } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase, json } from '../helpers/server.js';
import { clientOf, waitFor, waitForExport } from '../helpers/wait.js';

const KEY = generateSecret();
// The tests share one PostgreSQL database, each from a data dir of its own: one signing key
// for all, as for instances of one deployment (a server refuses a key that did not sign the chain).
const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function api(url: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${url}${path}`, { ...init, headers });
  return { status: res.status, body: res.status === 204 ? undefined : await json(res) };
}

// Each test starts the real server three times; on two loaded cores that alone can take 30 s.
describe('kill -9', { timeout: 120_000 }, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'secadmin-crash-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    // As root, a data dir under this 0700 directory keeps its cluster under /var/lib/secadmin.
    for (const name of await readdir(dataDir)) await removeClusterHome(join(dataDir, name));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('during a stream of ingest batches loses no acknowledged entry and shows no partial batch', async () => {
    const env = {
      DATABASE_URL: database.url,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_DATA_DIR: join(dataDir, 'ingest'),
      SECADMIN_ADMIN_API_KEY: KEY,
    };
    let server = await spawnServer(env);
    const acknowledged: string[] = [];
    const BATCH = 200;
    let batch = 0;
    const streams = Array.from({ length: 3 }, async () => {
      for (;;) {
        const n = batch++;
        const entries = Array.from({ length: BATCH }, (_, i) => ({
          event: 'crash.ingest',
          actor: { type: 'service', id: `batch-${n}` },
          result: 'success',
          metadata: { i },
        }));
        try {
          const { status, body } = await api(server.url, '/v1/logs', {
            method: 'POST',
            body: JSON.stringify({ entries }),
          });
          if (status !== 201) return;
          acknowledged.push(...(body.data as { id: string }[]).map((a) => a.id));
        } catch {
          return; // the connection died with the server
        }
      }
    });
    await waitFor('a few acknowledged batches', () => acknowledged.length >= 3_000, 30_000);
    await server.kill9();
    await Promise.all(streams);
    expect(acknowledged.length).toBeGreaterThan(0);
    const [atKill] = await database.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM log_seal_queue',
    );
    console.info(`kill -9 left ${atKill?.n} acknowledged entries unsealed`);

    server = await spawnServer(env);
    try {
      const counts = await database.query<{ actor_id: string; n: number }>(
        `SELECT actor_id, count(*)::int AS n FROM log_entries WHERE event = 'crash.ingest' GROUP BY actor_id`,
      );
      for (const row of counts) expect(row.n, row.actor_id).toBe(BATCH);
      const stored = new Set(
        (
          await database.query<{ id: string }>(
            `SELECT id FROM log_entries WHERE event = 'crash.ingest'`,
          )
        ).map((r) => r.id),
      );
      for (const id of acknowledged) expect(stored.has(id), id).toBe(true);

      // Entries acknowledged but not yet sealed when the process died are sealed after the
      // restart: one gapless chain over every stored entry, which verifies.
      let queued = -1;
      for (let i = 0; i < 100 && queued !== 0; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        queued = (
          await database.query<{ n: number }>('SELECT count(*)::int AS n FROM log_seal_queue')
        )[0]?.n as number;
      }
      const [chain] = await database.query<{ n: number; max: number; entries: number }>(
        `SELECT count(*)::int AS n, max(seq)::int AS max,
                (SELECT count(*)::int FROM log_entries) AS entries FROM log_chain`,
      );
      expect(chain).toEqual({ n: chain?.entries, max: chain?.entries, entries: chain?.entries });
      const sealed = await database.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM log_chain WHERE entry_id = ANY($1::text[])',
        [acknowledged],
      );
      expect(sealed[0]?.n).toBe(acknowledged.length);
      const { body: verdict } = await api(server.url, '/v1/logs/verify', {
        method: 'POST',
        body: '{}',
      });
      expect(verdict.data).toMatchObject({ valid: true, checkedEntries: chain?.entries });
    } finally {
      await server.stop();
    }
  });

  it('during an export: it completes after the restart with the right count', async () => {
    const env = { SECADMIN_DATA_DIR: join(dataDir, 'export'), SECADMIN_ADMIN_API_KEY: KEY };
    let server = await spawnServer(env);
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      event: 'crash.export',
      actor: { type: 'service', id: `e${i}` },
      result: 'success',
      timestamp: '2022-02-02T00:00:00.000Z',
    }));
    for (let i = 0; i < 20; i++)
      await api(server.url, '/v1/logs', { method: 'POST', body: JSON.stringify({ entries }) });
    const { body } = await api(server.url, '/v1/logs/export', {
      method: 'POST',
      body: JSON.stringify({ from: '2022-02-01', to: '2022-02-03', format: 'csv' }),
    });
    const exportId = body.data.exportId as string;
    await server.kill9();

    server = await spawnServer(env);
    try {
      const state = await waitForExport(clientOf(server.url, KEY), exportId);
      expect(state).toMatchObject({ status: 'completed', totalRecords: 20_000 });
    } finally {
      await server.stop();
    }
  });

  it('during a user deletion: the user, its keys, its principals and the redaction are all done or none', async () => {
    const env = {
      DATABASE_URL: database.url,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_DATA_DIR: join(dataDir, 'delete'),
      SECADMIN_ADMIN_API_KEY: KEY,
    };
    for (let round = 0; round < 3; round++) {
      let server = await spawnServer(env);
      const email = `crash-${round}-${Date.now()}@example.com`;
      const user = (
        await api(server.url, '/v1/users', { method: 'POST', body: JSON.stringify({ email }) })
      ).body.data;
      await api(server.url, '/v1/api-keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'k', principal: `user:${user.id}` }),
      });
      await api(server.url, '/v1/policies', {
        method: 'POST',
        body: JSON.stringify({
          name: `crash-${round}-${Date.now()}`,
          effect: 'allow',
          principals: [`user:${user.id}`],
          actions: ['*'],
          resources: ['*'],
        }),
      });
      await api(server.url, '/v1/logs', {
        method: 'POST',
        body: JSON.stringify({
          entries: [
            { event: 'user.login', actor: { id: user.id, email, type: 'user' }, result: 'success' },
          ],
        }),
      });
      const deletion = fetch(`${server.url}/v1/users/${user.id}`, {
        method: 'DELETE',
        headers,
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, round * 3));
      await server.kill9();
      await deletion;

      server = await spawnServer(env);
      try {
        const [state] = await database.query<{
          users: number;
          keys: number;
          principals: number;
          emails: number;
        }>(
          `SELECT (SELECT count(*)::int FROM users WHERE id = $1) AS users,
                  (SELECT count(*)::int FROM api_keys WHERE principal = $2) AS keys,
                  (SELECT count(*)::int FROM policies WHERE $2 = ANY(principals)) AS principals,
                  (SELECT count(*)::int FROM log_entries WHERE actor_email = $3) AS emails`,
          [user.id, `user:${user.id}`, email],
        );
        const done = { users: 0, keys: 0, principals: 0, emails: 0 };
        const none = { users: 1, keys: 1, principals: 1, emails: 1 };
        expect([JSON.stringify(done), JSON.stringify(none)]).toContain(JSON.stringify(state));
      } finally {
        await server.stop();
      }
    }
  });

  it('while the search store is fed: after the restart it counts every entry once, hour by hour as PostgreSQL', async () => {
    const env = {
      DATABASE_URL: database.url,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_DATA_DIR: join(dataDir, 'feed'),
      SECADMIN_ADMIN_API_KEY: KEY,
    };
    let server = await spawnServer(env);
    const word = `fed${Date.now().toString(36)}`;
    const hour = 3_600_000;
    const base = Math.floor(Date.now() / hour) * hour - 5 * hour;
    const ingested: string[] = [];
    try {
      // Five hours of backfill, so that hours are told apart.
      for (let b = 0; b < 10; b++) {
        const entries = Array.from({ length: 1000 }, (_, i) => ({
          event: 'crash.fed',
          actor: { type: 'service', id: `svc-${b}` },
          result: 'success',
          timestamp: new Date(base + ((b * 1000 + i) % 5) * hour + i).toISOString(),
          metadata: { note: word },
        }));
        const { status, body } = await api(server.url, '/v1/logs', {
          method: 'POST',
          body: JSON.stringify({ entries }),
        });
        expect(status).toBe(201);
        ingested.push(...(body.data as { id: string }[]).map((a) => a.id));
      }
      // Killed once the feeder has begun, while it has the rest still to copy.
      await waitFor('the feeder to begin', async () => {
        const { body } = await api(server.url, '/v1/logs/search-index');
        return body.data.indexedThroughSeq > 0;
      });
      await server.kill9();
      server = await spawnServer(env);
      await waitFor(
        'the store to hold every entry',
        async () => {
          const [queued] = await database.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM log_seal_queue',
          );
          const { body } = await api(server.url, '/v1/logs/search-index');
          return queued?.n === 0 && body.data.indexedThroughSeq >= body.data.sealedThroughSeq;
        },
        60_000,
      );
      const found = await api(server.url, '/v1/logs/search', {
        method: 'POST',
        body: JSON.stringify({ query: word, limit: 1 }),
      });
      expect(found.body.meta.totalHits).toBe(ingested.length);
      const stats = await api(server.url, '/v1/logs/stats', {
        method: 'POST',
        body: JSON.stringify({
          query: word,
          from: new Date(base).toISOString(),
          to: new Date(base + 5 * hour).toISOString(),
          interval: '1h',
        }),
      });
      const hourly = await database.query<{ start: Date; n: number }>(
        `SELECT date_bin('1 hour', timestamp, TIMESTAMPTZ '1970-01-01Z') AS start, count(*)::int AS n
         FROM log_entries WHERE event = 'crash.fed' GROUP BY 1 ORDER BY 1`,
      );
      expect(
        (stats.body.data.buckets as { start: string; count: number }[]).map((b) => [
          new Date(b.start).getTime(),
          b.count,
        ]),
      ).toEqual(hourly.map((h) => [new Date(h.start).getTime(), h.n]));
    } finally {
      await server.dispose();
    }
  });
});
