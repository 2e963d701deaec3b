import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionOn } from '../../../../test/helpers/fixtures.js';
import {
  DATABASES,
  json,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { createLogger } from '../../../logger.js';
import { createStore } from '../../../storage/store.js';
import { EntriesRepository } from '../entries/repository.js';
import { parseSearchQuery } from '../search/query.js';
import { SearchRepository } from '../search/repository.js';
import { monthOf, PartitionsRepository } from './repository.js';
import { LogPartitions } from './service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const now = new Date();
const monthsFromNow = (months: number, day = 1) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day));

describe.each(DATABASES)('audit log partitions on %s', (database) => {
  let server: TestServer;
  let partitions: () => LogPartitions;
  beforeAll(async () => {
    server = await startTestServer(database);
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

  it('keeps a backfilled entry in the default partition, listed and searched, and creates no partition over it', async () => {
    const longAgo = new Date(Date.now() - 400 * DAY_MS);
    await ingest('partition.backfill_probe', [longAgo], 'backfilledquokka');
    const stored = await server.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM log_entries_default WHERE event = 'partition.backfill_probe'",
    );
    expect(stored[0]?.n).toBe(1);
    expect(await get('/v1/logs?events=partition.backfill_probe')).toHaveLength(1);
    const search = async (body: { query: string; from?: string }) =>
      (await server.client.POST('/v1/logs/search', { body })).data?.data;
    expect(await search({ query: 'backfilledquokka' })).toHaveLength(1);
    const from = new Date(longAgo.getTime() - DAY_MS).toISOString();
    expect(await search({ query: 'backfilledquokka', from })).toHaveLength(1);

    expect(await partitions().ensureAhead(longAgo)).not.toContainEqual(monthOf(longAgo));
    expect(await months()).not.toContain(monthOf(longAgo).name);
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

    const run = await retentionOn(server.db, 30).apply();
    // The old month's four entries, and the backfilled entry of the default partition.
    expect(run.removedEntries).toBe(5);
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
    expect(records.map((r) => r.metadata.removedEntries)).toEqual(expect.arrayContaining([4, 1]));

    await server.sealer.flush();
    const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
    expect(data?.data).toMatchObject({ valid: true });
    const marked = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM log_chain WHERE removed_at IS NOT NULL',
    );
    expect(marked[0]?.n).toBe(5);
  });

  // The embedded database prunes alike; its plans are not what operators tune (PostgreSQL's are).
  it.runIf(database === 'postgres')('reads only the months that from/to name', async () => {
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
    const search = new SearchRepository(explaining);
    const month = { from: monthsFromNow(0), to: monthsFromNow(1) };
    await entries.list(month, undefined, 50);
    await search.search(parseSearchQuery('probe'), month, undefined, 51);
    await search.count(parseSearchQuery('probe'), month, false);
    expect([...new Set(relations)]).toEqual([monthOf(month.from).name]);

    relations.length = 0;
    await entries.list({}, undefined, 50);
    expect(new Set(relations).size).toBeGreaterThan(3);
  });
});
