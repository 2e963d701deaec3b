import type { components } from '@secadmin/api-types';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { retentionOn } from '../../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { FACET_SIZE, type StatsField } from './repository.js';

type Entry = components['schemas']['LogEntryInput'];
type LogStats = components['schemas']['LogStats'];
type Interval = NonNullable<components['schemas']['LogStatsRequest']['interval']>;

interface Row {
  timestamp: Date;
  event: string;
  result: string;
  origin: string;
  actor_id: string | null;
  actor_type: string;
  target_type: string | null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const START = Date.UTC(2025, 6, 1);
const SPAN_MS = 4 * DAY_MS;
const EVENTS = ['user.login', 'user.logout', 'file.read', 'policy.updated'];
const FIELDS: StatsField[] = ['event', 'result', 'origin', 'actor.type', 'target.type'];
const COLUMN: Record<StatsField, keyof Row> = {
  event: 'event',
  result: 'result',
  origin: 'origin',
  'actor.id': 'actor_id',
  'actor.type': 'actor_type',
  'target.type': 'target_type',
};
/** Queries the kept counts can answer and some they cannot, each with what it finds. */
const QUERIES: [query: string | undefined, finds: (row: Row) => boolean][] = [
  [undefined, () => true],
  ['event:user.login', (r) => r.event === 'user.login'],
  ['event:User.*', (r) => r.event.startsWith('user.')],
  ['-result:failure', (r) => r.result !== 'failure'],
  ['event:file.read OR result:failure', (r) => r.event === 'file.read' || r.result === 'failure'],
  [
    'event:policy.updated actor:actor_1',
    (r) => r.event === 'policy.updated' && r.actor_id === 'actor_1',
  ],
];

/** A small deterministic generator, so that a failure replays. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return {
    below: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}

function entries(count: number, from: number, span: number, seed: number): Entry[] {
  const r = random(seed);
  return Array.from({ length: count }, () => ({
    event: r.pick(EVENTS),
    actor:
      r.below(3) === 0
        ? { type: 'service', id: 'svc' }
        : { type: 'user', id: `actor_${r.below(4)}` },
    ...(r.below(3) === 0 ? {} : { target: { type: r.pick(['document', 'user']), id: 't' } }),
    result: r.below(4) === 0 ? 'failure' : 'success',
    timestamp: new Date(from + r.below(span)).toISOString(),
  }));
}

/** What the stats of `[from, to)` must be, counted from the entries themselves. */
function expected(
  rows: Row[],
  answer: LogStats,
  from: number,
  to: number,
  query: number,
  fields: StatsField[],
) {
  const finds = (QUERIES[query] as (typeof QUERIES)[number])[1];
  const matched = rows.filter(
    (r) => r.timestamp.getTime() >= from && r.timestamp.getTime() < to && finds(r),
  );
  const first = Date.parse(answer.buckets[0]?.start ?? '');
  const width = answer.buckets.length > 1 ? Date.parse(answer.buckets[1]?.start ?? '') - first : 0;
  const buckets = answer.buckets.map(({ start }) => ({ start, count: 0 }));
  for (const row of matched) {
    const bucket = buckets[width === 0 ? 0 : Math.floor((row.timestamp.getTime() - first) / width)];
    if (bucket) bucket.count++;
  }
  const facets = Object.fromEntries(
    fields.map((field) => {
      const counts = new Map<string, number>();
      for (const row of matched) {
        const value = row[COLUMN[field]] as string | null;
        if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
      }
      const ranked = [...counts]
        .map(([value, count]) => ({ value, count }))
        .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
        .slice(0, FACET_SIZE);
      return [field, ranked];
    }),
  );
  return { buckets, facets, total: matched.length };
}

describe('log stats from the kept counts', () => {
  let server: TestServer;
  const r = random(27);

  const ingest = async (batch: Entry[]) => {
    for (let i = 0; i < batch.length; i += 500) {
      const { response } = await server.client.POST('/v1/logs', {
        body: { entries: batch.slice(i, i + 500) },
      });
      expect(response.status).toBe(201);
    }
  };
  const queued = async () =>
    (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM log_seal_queue'))[0]?.n;
  const sealed = () =>
    vi.waitFor(async () => expect(await queued()).toBe(0), { timeout: 60_000, interval: 50 });
  /** What the hour counts and the actor counts hold for `[from, to)`: they must agree. */
  const counted = async (from: number, to: number) => {
    const [row] = await server.db.query<{ hours: number; actors: number }>(
      `SELECT (SELECT coalesce(sum(n), 0)::int FROM log_entry_counts WHERE hour >= $1 AND hour < $2) AS hours,
              (SELECT coalesce(sum(n), 0)::int FROM log_actor_counts WHERE day >= $1 AND day < $2) AS actors`,
      [new Date(from), new Date(to)],
    );
    // Every entry here has an actor id.
    expect(row?.actors).toBe(row?.hours);
    return row?.hours;
  };

  /** Random requests over `[from, to)`, each compared with a count of the entries. */
  const compare = async (spanFrom: number, spanTo: number, requests: number) => {
    const rows = await server.db.query<Row>(
      `SELECT timestamp, event, result, origin, actor_id, actor_type, target_type FROM log_entries
       WHERE timestamp >= $1 AND timestamp < $2`,
      [new Date(spanFrom), new Date(spanTo)],
    );
    for (let i = 0; i < requests; i++) {
      // In turn: what the actor counts answer (no query, actor.id, a day or more), what the
      // hour counts answer (event:/result: queries, no actor.id), and anything at all.
      const kind = i % 3;
      const from = spanFrom + r.below(spanTo - spanFrom);
      const to = Math.min(spanTo, from + 1 + (kind === 0 ? DAY_MS : 0) + r.below(2 * DAY_MS));
      const query = kind === 0 ? 0 : kind === 1 ? 1 + r.below(4) : r.below(QUERIES.length);
      const interval = r.pick<Interval>(
        kind === 2 ? ['1h', '6h', '1d', 'auto'] : ['1h', '6h', '1d'],
      );
      const some = FIELDS.filter(() => r.below(2) === 0);
      const fields: StatsField[] =
        kind === 0
          ? [...some, 'actor.id']
          : kind === 1
            ? some
            : [...some, 'actor.id' as const].filter(() => r.below(2) === 0);
      const q = QUERIES[query]?.[0];
      const body = {
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        interval,
        ...(q === undefined ? {} : { query: q }),
        ...(fields.length > 0 ? { groupBy: fields } : {}),
      };
      const { data } = await server.client.POST('/v1/logs/stats', { body });
      const answer = data?.data as LogStats;
      const want = expected(rows, answer, from, to, query, fields);
      expect(
        { buckets: answer.buckets, facets: answer.facets ?? {}, total: answer.total },
        JSON.stringify(body),
      ).toEqual(want);
    }
  };

  beforeAll(async () => {
    server = await startTestServer();
    await ingest(entries(1_500, START, SPAN_MS, 1));
  }, 120_000);
  afterAll(() => server?.stop());

  it('answers whole sealed hours and days from the counts as the entries would', async () => {
    await sealed();
    expect(await counted(START, START + SPAN_MS)).toBe(1_500);
    await compare(START, START + SPAN_MS, 60);
  });

  it('counts entries not sealed yet from the entries, once each', async () => {
    await sealed();
    // While this connection holds the sealer's lock, nothing is sealed.
    const holder = new pg.Client({ connectionString: server.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7246614222)');
      await ingest(entries(400, START, SPAN_MS, 2));
      expect(await queued()).toBeGreaterThanOrEqual(400);
      expect(await counted(START, START + SPAN_MS)).toBe(1_500);
      await compare(START, START + SPAN_MS, 40);
      await holder.query('ROLLBACK');
      await sealed();
      expect(await counted(START, START + SPAN_MS)).toBe(1_900);
      await compare(START, START + SPAN_MS, 20);
    } finally {
      await holder.end();
    }
  });

  it('loses what retention removes, row by row and by month', async () => {
    // Around the cutoff of a 30-day window: the month holding it loses rows one by one; the
    // months wholly before it (START's) are dropped.
    const cutoff = Date.now() - 30 * DAY_MS;
    const near = Math.floor((cutoff - 2 * DAY_MS) / DAY_MS) * DAY_MS;
    await ingest(entries(600, near, 4 * DAY_MS, 3));
    await sealed();
    const before = await counted(near, near + 4 * DAY_MS);
    expect(before).toBeGreaterThanOrEqual(600);
    expect((await retentionOn(server.db, 30).apply()).removedEntries).toBeGreaterThan(0);
    const after = await counted(near, near + 4 * DAY_MS);
    expect(after).toBeLessThan(before as number);
    expect(after).toBeGreaterThan(0);
    expect(await counted(START, START + SPAN_MS)).toBe(0);
    await compare(near, near + 4 * DAY_MS, 30);
    await compare(START, START + SPAN_MS, 5);
  });
});
