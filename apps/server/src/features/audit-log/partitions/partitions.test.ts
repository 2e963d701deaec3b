import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionOn } from '../../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { createLogger } from '../../../logger.js';
import { createStore } from '../../../storage/store.js';
import { EntriesRepository } from '../entries/repository.js';
import { monthOf, PartitionsRepository } from './repository.js';
import { BACKFILL_MONTHS, LogPartitions } from './service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const now = new Date();
const monthsFromNow = (months: number, day = 1) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day));

describe('audit log partitions', () => {
  let server: TestServer;
  let partitions: () => LogPartitions;
  beforeAll(async () => {
    server = await startTestServer();
    partitions = () => {
      const store = createStore(server.db);
      return new LogPartitions(
        store,
        new PartitionsRepository(store.connection),
        createLogger('silent'),
      );
    };
  });
  afterAll(() => server?.stop());

  const months = async () =>
    (await new PartitionsRepository(createStore(server.db).connection).months()).map((m) => m.name);
  const ingest = async (event: string, timestamps: Date[], note = 'probe') => {
    const res = await raw(server, '/v1/logs', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        entries: timestamps.map((timestamp) => ({
          event,
          actor: { type: 'system' },
          result: 'success',
          timestamp: timestamp.toISOString(),
          metadata: { note },
        })),
      }),
    });
    expect(res.status).toBe(201);
  };
  const get = async (path: string) => {
    const res = await raw(server, path, { headers: { authorization: `Bearer ${server.rootKey}` } });
    expect(res.status).toBe(200);
    return (await json(res)).data as { id: string; timestamp: string }[];
  };

  it('has the current month and the next two, creates months ahead once from two instances, and a missing one at start', async () => {
    expect(await months()).toEqual(
      expect.arrayContaining([0, 1, 2].map((i) => monthOf(monthsFromNow(i)).name)),
    );
    const later = monthsFromNow(8);
    const [a, b] = await Promise.all([
      partitions().ensureAhead(later),
      partitions().ensureAhead(later),
    ]);
    const created = [...(a ?? []), ...(b ?? [])].map((m) => m.name).sort();
    expect(created).toEqual([8, 9, 10].map((i) => monthOf(monthsFromNow(i)).name));
    expect(await months()).toEqual(expect.arrayContaining(created));

    // A server that starts finds a month ahead missing, and creates it before it listens.
    const ahead = monthOf(monthsFromNow(2)).name;
    await server.db.query(`DROP TABLE "${ahead}"`);
    server = await server.restart();
    expect(await months()).toContain(ahead);
  });

  it('gives a backfill of the last three years partitions of its own months before inserting it', async () => {
    const times = [monthsFromNow(-5, 15), monthsFromNow(-8, 2), monthsFromNow(-BACKFILL_MONTHS, 9)];
    await ingest('partition.recent_backfill', times);
    const placed = await server.db.query<{ partition: string; n: number }>(
      `SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM log_entries
       WHERE event = 'partition.recent_backfill' GROUP BY 1 ORDER BY 1`,
    );
    expect(placed).toEqual(
      times
        .map((t) => ({ partition: monthOf(t).name, n: 1 }))
        .sort((a, b) => a.partition.localeCompare(b.partition)),
    );
    // One request at a time: a second batch of the same months creates nothing new.
    expect(await partitions().ensureFor(times)).toEqual([]);
  });

  it('keeps an older backfilled entry in the default partition, listed and searched, and creates no partition over it', async () => {
    const longAgo = monthsFromNow(-BACKFILL_MONTHS - 2, 5);
    await ingest('partition.backfill_probe', [longAgo], 'backfilledquokka');
    const stored = await server.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM log_entries_default WHERE event = 'partition.backfill_probe'",
    );
    expect(stored[0]?.n).toBe(1);
    expect(await get('/v1/logs?events=partition.backfill_probe')).toHaveLength(1);
    await server.searchable();
    const search = async (body: { query: string; from?: string }) =>
      (await server.client.POST('/v1/logs/search', { body })).data?.data;
    expect(await search({ query: 'backfilledquokka' })).toHaveLength(1);
    const from = new Date(longAgo.getTime() - DAY_MS).toISOString();
    expect(await search({ query: 'backfilledquokka', from })).toHaveLength(1);

    expect(await partitions().ensureAhead(longAgo)).not.toContainEqual(monthOf(longAgo));
    expect(await months()).not.toContain(monthOf(longAgo).name);
  });

  it('writes a backfill to the default partition rather than wait while the log is being read', async () => {
    const month = monthsFromNow(-6, 3);
    expect(await months()).not.toContain(monthOf(month).name);
    const reader = new pg.Client({ connectionString: server.config.databaseUrl });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM log_entries');
      // Were the ingest to wait for the reader's lock, it would never answer: the reader
      // commits only after it.
      await ingest('partition.busy_backfill', [month]);
      await reader.query('COMMIT');
    } finally {
      await reader.end();
    }
    const placed = await server.db.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM log_entries WHERE event = 'partition.busy_backfill'`,
    );
    expect(placed).toEqual([{ partition: 'log_entries_default' }]);
  });

  it('analyzes a backfilled partition by itself, with autovacuum off or on', async () => {
    const month = monthsFromNow(-7, 4);
    const batch = Array.from({ length: 1_000 }, (_, i) => new Date(month.getTime() + i * 1_000));
    await ingest('partition.analyzed_backfill', batch);
    await ingest('partition.analyzed_backfill', batch);
    const analyzed = async () =>
      (
        await server.db.query<{ at: Date | null }>(
          'SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = $1',
          [monthOf(month).name],
        )
      )[0]?.at ?? null;
    await waitFor('the partition analyzed', async () => (await analyzed()) !== null, 60_000);
    const [stats] = await server.db.query<{ rows: number }>(
      'SELECT reltuples::int AS rows FROM pg_class WHERE relname = $1',
      [monthOf(month).name],
    );
    expect(stats?.rows).toBe(2_000);
  });

  it('retention drops whole old months, deletes old rows of the default partition, and verify stays valid', async () => {
    const created = await partitions().ensureAhead(monthsFromNow(-4));
    expect(created.map((m) => m.name)).toEqual(
      [-4, -3, -2].map((i) => monthOf(monthsFromNow(i)).name),
    );
    const oldMonth = monthOf(monthsFromNow(-4)).name;
    await ingest(
      'partition.old_month_probe',
      [1, 2, 3].map((day) => monthsFromNow(-4, 10 + day)),
    );
    // An ingested lookalike of the service's retention record is an ordinary entry.
    await ingest('logs.retention.applied', [monthsFromNow(-4, 20)]);
    await ingest('partition.kept_probe', [new Date(Date.now() - DAY_MS)]);
    const inOldMonth = await server.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${oldMonth}"`,
    );
    expect(inOldMonth[0]?.n).toBe(4);
    await server.sealer.flush();

    // Besides: the backfills of the tests above, all of months older than 30 days.
    const [backfills] = await server.db.query<{ n: number; inDefault: number }>(
      `SELECT count(*)::int AS n,
         (count(*) FILTER (WHERE tableoid = 'log_entries_default'::regclass))::int AS "inDefault"
       FROM log_entries WHERE event IN
       ('partition.recent_backfill', 'partition.analyzed_backfill', 'partition.busy_backfill')`,
    );
    const run = await retentionOn(server.db, 30).apply();
    // The old month's four entries, and the backfilled entry of the default partition.
    expect(run.removedEntries).toBe(5 + (backfills?.n ?? 0));
    expect(await months()).not.toContain(oldMonth);
    expect(await get('/v1/logs?events=partition.old_month_probe')).toEqual([]);
    expect(await get('/v1/logs?events=partition.backfill_probe')).toEqual([]);
    expect(await get('/v1/logs?events=partition.kept_probe')).toHaveLength(1);
    const lookalikes = await server.db.query(
      `SELECT 1 FROM log_entries WHERE event = 'logs.retention.applied' AND origin = 'api'`,
    );
    expect(lookalikes).toEqual([]);
    const records = await server.db.query<{ metadata: Record<string, unknown> }>(
      `SELECT metadata FROM log_entries WHERE event = 'logs.retention.applied'`,
    );
    expect(records.map((r) => r.metadata)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ partition: oldMonth, removedEntries: 4 }),
        expect.not.objectContaining({ partition: expect.anything() }),
      ]),
    );
    expect(records.map((r) => r.metadata.removedEntries)).toEqual(
      expect.arrayContaining([4, 1 + (backfills?.inDefault ?? 0)]),
    );

    await server.sealer.flush();
    const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
    expect(data?.data).toMatchObject({ valid: true });
    const marked = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM log_chain WHERE removed_at IS NOT NULL',
    );
    expect(marked[0]?.n).toBe(5 + (backfills?.n ?? 0));

    // The search store loses what PostgreSQL lost: the month dropped whole, the row deleted.
    await server.searchable();
    const hits = async (query: string) =>
      (await server.client.POST('/v1/logs/search', { body: { query } })).data?.meta.totalHits;
    expect(await hits('event:partition.old_month_probe')).toBe(0);
    expect(await hits('backfilledquokka')).toBe(0);
    expect(await hits('event:partition.kept_probe')).toBe(1);
    // The service's retention records stay (the lookalike ingested is gone).
    expect(await hits('event:logs.retention.applied')).toBe(records.length);
  });

  it('reads only the months that from/to name', async () => {
    const relations: string[] = [];
    const collect = (plan: { 'Relation Name'?: string; Plans?: unknown[] }): void => {
      if (plan['Relation Name']?.startsWith('log_entries')) relations.push(plan['Relation Name']);
      for (const child of plan.Plans ?? []) collect(child as typeof plan);
    };
    const explaining = {
      db: server.db.prisma,
      sql: async <T>(text: string, values: unknown[] = []) => {
        const [explained] = await server.db.query<{ 'QUERY PLAN': [{ Plan: never }] }>(
          `EXPLAIN (FORMAT JSON) ${text}`,
          values,
        );
        collect(explained?.['QUERY PLAN'][0].Plan ?? {});
        return server.db.query<T>(text, values);
      },
    };
    const entries = new EntriesRepository(explaining);
    const month = { from: monthsFromNow(0), to: monthsFromNow(1) };
    await entries.list(month, undefined, 50);
    expect([...new Set(relations)]).toEqual([monthOf(month.from).name]);

    relations.length = 0;
    await entries.list({}, undefined, 50);
    expect(new Set(relations).size).toBeGreaterThan(3);
  });
});
