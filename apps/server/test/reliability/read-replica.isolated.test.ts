import { generateKeyPairSync } from 'node:crypto';
import { type ReplicatedPostgres, startReplicatedPostgres } from '@secadmin/test-infra';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { capturingLogger, traffic } from '../faults/traffic.js';
import { json, raw, sharedAnalytics, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor, waitForExport } from '../helpers/wait.js';

const FROM = '2020-01-01T00:00:00Z';
const TO = '2020-01-02T00:00:00Z';
/** Entries already there before each test: small, but enough that a read's rows show in counters. */
const SEEDED = 400;

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Until the replica has replayed everything the primary has written so far. */
async function replicated(pair: ReplicatedPostgres): Promise<void> {
  const [primary] = await query<{ lsn: string }>(
    pair.primary.url,
    'SELECT pg_current_wal_lsn()::text AS lsn',
  );
  await waitFor('the replica to catch up', async () => {
    const [row] = await query<{ done: boolean }>(
      pair.replica.url,
      'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
      [primary?.lsn],
    );
    return row?.done === true;
  });
}

/** Rows the database's backends have returned, and transactions they committed, so far. */
async function counters(url: string): Promise<{ tuples: number; xacts: number }> {
  const [row] = await query<{ tuples: string; xacts: string }>(
    url,
    `SELECT tup_returned + tup_fetched AS tuples, xact_commit AS xacts
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { tuples: Number(row?.tuples), xacts: Number(row?.xacts) };
}

/** Client connections to `url` other than this query's own. */
async function serverBackends(url: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    url,
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  return row?.n ?? 0;
}

/** The server's connections on `url` (by application_name), excluding the test's own. */
async function connections(url: string, applicationName: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    url,
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
    [applicationName],
  );
  return row?.n ?? 0;
}

function api(server: TestServer, path: string, body?: unknown): Promise<Response> {
  return raw(server, path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function ingest(server: TestServer, word: string, count: number): Promise<string[]> {
  const entries = Array.from({ length: count }, (_, i) => ({
    event: 'replica.read',
    actor: { id: `u${i % 7}`, type: 'user' },
    result: 'success',
    timestamp: new Date(Date.parse(FROM) + 60_000 + i * 1000).toISOString(),
    metadata: { note: `${word} ${i}` },
  }));
  const res = await api(server, '/v1/logs', { entries });
  expect(res.status).toBe(201);
  return (await json(res)).data.map((entry: { id: string }) => entry.id);
}

/**
 * What a client sees of the log: a list (the replica's), and search and statistics (the
 * analytics store's, fed from the primary), once the store holds every sealed entry.
 */
async function readsSee(server: TestServer, word: string) {
  await server.searchable();
  const listed = await json(await api(server, '/v1/logs?limit=1000&events=replica.read'));
  const searched = await json(await api(server, '/v1/logs/search', { query: word, limit: 10 }));
  const stats = await json(await api(server, '/v1/logs/stats', { from: FROM, to: TO }));
  return {
    list: listed.data.length as number,
    search: searched.meta.totalHits as number,
    shown: searched.data.length as number,
    stats: stats.data.total as number,
  };
}

/** An export of the test's entries: its id and estimate at once. */
async function createExport(server: TestServer, format: 'json' | 'csv' = 'json') {
  const created = await json(
    await api(server, '/v1/logs/export', { from: FROM, to: TO, events: ['replica.read'], format }),
  );
  return created.data as { exportId: string; estimatedRecords: number };
}

describe('DATABASE_READ_URL: a streaming replica serves the audit log reads', {
  timeout: 120_000,
}, () => {
  let pair: ReplicatedPostgres;
  let server: TestServer | undefined;
  const log = capturingLogger();
  // Every server of this file is an instance of one deployment: the same keys.
  const keys = {
    adminApiKey: generateSecret(),
    signingKey: generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  };
  /** The replica's URL with a password (trust auth ignores it): it must never be logged. */
  const readUrl = () => pair.replica.url.replace('postgres@', 'postgres:s3cret-pw@');
  // One store too: each server finds the copy of the log the one before it fed.
  const analytics = sharedAnalytics();
  const start = (withReplica: boolean) =>
    startTestServer(
      {
        ...keys,
        analytics,
        databaseUrl: pair.primary.url,
        databaseReadUrl: withReplica ? readUrl() : undefined,
      },
      { logger: log.logger },
    );
  const running = () => server as TestServer;

  beforeAll(async () => {
    pair = await startReplicatedPostgres();
    server = await start(true);
    await ingest(running(), 'seeded', SEEDED);
    await replicated(pair);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await pair?.remove();
    expect(JSON.stringify(log.lines())).not.toContain('s3cret-pw');
  });

  it('lists and exports read the replica (they lag while its replay is paused); search and statistics read the store, a read by id and every write the primary', async () => {
    // The read pool shows on the replica under its own name, and only there.
    expect(await readsSee(running(), 'seeded')).toEqual({
      list: SEEDED,
      search: SEEDED,
      shown: 10,
      stats: SEEDED,
    });
    expect(await connections(pair.replica.url, 'secadmin-read')).toBeGreaterThan(0);
    expect(await connections(pair.primary.url, 'secadmin-read')).toBe(0);

    await query(pair.replica.url, 'SELECT pg_wal_replay_pause()');
    let pending: { exportId: string; estimatedRecords: number };
    try {
      await waitFor(
        'replay to pause',
        async () =>
          (
            await query<{ state: string }>(
              pair.replica.url,
              'SELECT pg_get_wal_replay_pause_state() AS state',
            )
          )[0]?.state === 'paused',
      );
      const ids = await ingest(running(), 'fresh', 5);
      // Acknowledged, and read back by id at once: the primary serves it.
      for (const id of ids) expect((await api(running(), `/v1/logs/${id}`)).status).toBe(200);
      // The replica has not replayed them: the list it serves does not show them yet. The
      // store is fed from the primary: search finds and shows them, statistics count them.
      expect(await readsSee(running(), 'fresh')).toEqual({
        list: SEEDED,
        search: 5,
        shown: 5,
        stats: SEEDED + 5,
      });
      // An export is complete up to its start: taken up, it waits for the replica to catch up.
      pending = await createExport(running());
      expect(pending.estimatedRecords).toBe(SEEDED);
      await waitFor('the worker to take the export up', async () => {
        const [row] = await query<{ claimed: boolean }>(
          pair.primary.url,
          'SELECT claimed_by IS NOT NULL AS claimed FROM exports WHERE id = $1',
          [pending.exportId],
        );
        return row?.claimed === true;
      });
      const { data } = await running().client.GET('/v1/logs/export/{exportId}', {
        params: { path: { exportId: pending.exportId } },
      });
      expect(data?.data.status).toBe('processing');
    } finally {
      await query(pair.replica.url, 'SELECT pg_wal_replay_resume()');
    }
    expect((await waitForExport(running().client, pending.exportId)).totalRecords).toBe(SEEDED + 5);
    await replicated(pair);
    expect(await readsSee(running(), 'fresh')).toEqual({
      list: SEEDED + 5,
      search: 5,
      shown: 5,
      stats: SEEDED + 5,
    });
    expect((await createExport(running())).estimatedRecords).toBe(SEEDED + 5);
  });

  it('takes these reads off the primary', async ({ annotate }) => {
    const rounds = 20;
    /**
     * What each database did for a server's start, `rounds` lists and searches, and stop:
     * counted once the server's connections are gone (a backend reports its counters when it
     * exits at the latest).
     */
    const load = async (withReplica: boolean) => {
      await server?.stop();
      server = undefined;
      await waitFor('the server connections to close', quiet);
      const before = [await counters(pair.primary.url), await counters(pair.replica.url)];
      const measured = await start(withReplica);
      for (let i = 0; i < rounds; i++) {
        expect((await api(measured, '/v1/logs?limit=100')).status).toBe(200);
        expect((await api(measured, '/v1/logs/search', { query: 'seeded' })).status).toBe(200);
      }
      await measured.stop();
      await waitFor('the server connections to close', quiet);
      const after = [await counters(pair.primary.url), await counters(pair.replica.url)];
      const delta = (i: number, key: 'tuples' | 'xacts') =>
        (after[i]?.[key] ?? 0) - (before[i]?.[key] ?? 0);
      return {
        primary: { tuples: delta(0, 'tuples'), xacts: delta(0, 'xacts') },
        replica: { tuples: delta(1, 'tuples'), xacts: delta(1, 'xacts') },
      };
    };
    const quiet = async () =>
      (await serverBackends(pair.primary.url)) === 0 &&
      (await serverBackends(pair.replica.url)) === 0;

    const alone = await load(false);
    const beside = await load(true);
    await annotate(
      `${rounds} lists + ${rounds} searches, start to stop: primary alone ${JSON.stringify(alone)}; with the replica ${JSON.stringify(beside)}`,
    );
    server = await start(true);
    // Without the replica it reads nothing; with it, it reads what the primary no longer does.
    expect(alone.replica.tuples).toBeLessThan(beside.replica.tuples / 10);
    expect(beside.primary.tuples).toBeLessThan(alone.primary.tuples / 2);
    expect(beside.replica.tuples).toBeGreaterThan(
      (alone.primary.tuples - beside.primary.tuples) / 2,
    );
  });

  it('while the replica is down, the primary serves its reads and /readyz says degraded; then the replica serves them again', async () => {
    const paths = [
      () => api(running(), '/v1/logs?limit=50'),
      () => api(running(), '/v1/logs/search', { query: 'seeded' }),
      () => api(running(), '/v1/logs/stats', { from: FROM, to: TO, groupBy: ['actor.id'] }),
    ];
    let n = 0;
    const reads = traffic(() => (paths[n++ % paths.length] as () => Promise<Response>)(), {
      workers: 2,
    });
    try {
      await waitFor('reads on the replica', () => reads.samples.length >= 10);
      await pair.replica.stop();
      let ready: unknown;
      // The store's state is read on the primary, as before.
      await waitFor('readiness to see the replica down', async () => {
        const res = await raw(running(), '/readyz');
        ready = await json(res);
        const { checks } = ready as { checks: Record<string, string> };
        return (
          res.status === 200 && checks.readReplica === 'unavailable' && checks.analytics === 'ok'
        );
      });
      expect(ready).toEqual({
        status: 'degraded',
        checks: {
          database: 'ok',
          rateLimitStore: 'memory',
          analytics: 'ok',
          readReplica: 'unavailable',
        },
      });
      const during = reads.samples.length;
      await waitFor('reads with the replica down', () => reads.samples.length >= during + 20);
      // An export made while the replica is down is read from the primary, whole.
      const { exportId } = await createExport(running(), 'csv');
      expect((await waitForExport(running().client, exportId)).totalRecords).toBe(SEEDED + 5);

      await pair.replica.start();
      await waitFor('readiness to see the replica back', async () => {
        const ready = await raw(running(), '/readyz');
        return (await json(ready)).status === 'ok';
      });
      const after = reads.samples.length;
      await waitFor('reads after the replica is back', () => reads.samples.length >= after + 10);
    } finally {
      await reads.stop();
    }
    expect(new Set(reads.samples.map((s) => s.status))).toEqual(new Set([200]));
    expect(await connections(pair.replica.url, 'secadmin-read')).toBeGreaterThan(0);
    const messages = log.lines().map((line) => line.msg);
    expect(messages.filter((m) => String(m).startsWith('read replica unreachable'))).toHaveLength(
      1,
    );
    expect(
      messages.filter((m) => String(m).startsWith('read replica reachable again')),
    ).toHaveLength(1);
  });
});
