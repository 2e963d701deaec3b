import type { components } from '@secadmin/api-types';
import { Session } from 'chdb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';

type Entry = components['schemas']['LogEntryInput'];
type StatsRequest = components['schemas']['LogStatsRequest'];

const entry = (timestamp: string, event: string, actor: string): Entry => ({
  event,
  actor: { type: 'user', id: actor, email: `${actor}@example.com` },
  result: 'success',
  timestamp,
});

// A day of its own: partial hours at both ends of the range, whole hours between them.
const ENTRIES = [
  entry('2025-04-02T10:05:00.000Z', 'edge.outside', 'ann'),
  entry('2025-04-02T10:20:00.000Z', 'hours.start', 'ann'),
  entry('2025-04-02T11:00:00.000Z', 'hours.whole', 'ann'),
  entry('2025-04-02T11:59:59.999Z', 'hours.whole', 'bob'),
  entry('2025-04-02T12:30:00.000Z', 'hours.whole', 'bob'),
  entry('2025-04-02T13:10:00.000Z', 'hours.end', 'cy'),
  entry('2025-04-02T13:50:00.000Z', 'edge.outside', 'cy'),
];
const RANGE = { from: '2025-04-02T10:15:00Z', to: '2025-04-02T13:45:00Z', interval: '1h' } as const;

type Run = (sql: string, params?: object, opts?: object) => Promise<unknown>;

describe('statistics over whole hours without a query', () => {
  let server: TestServer;
  const statements: string[] = [];
  const plans: string[] = [];

  const stats = async (body: StatsRequest) => {
    const { data } = await server.client.POST('/v1/logs/stats', { body });
    if (!data) throw new Error('no data');
    return data.data;
  };

  beforeAll(async () => {
    server = await startTestServer();
    const { response } = await server.client.POST('/v1/logs', { body: { entries: ENTRIES } });
    expect(response.status).toBe(201);
    await server.searchable();
  });
  afterAll(() => server?.stop());
  afterEach(() => vi.restoreAllMocks());

  /** Records each statistics statement and the engine's plan of it. */
  function recordPlans() {
    statements.length = 0;
    plans.length = 0;
    const original = Session.prototype.queryBindAsync as Run;
    vi.spyOn(Session.prototype, 'queryBindAsync').mockImplementation(async function (
      this: Session,
      sql,
      params,
      opts,
    ) {
      if (sql.includes('GROUPING SETS')) {
        statements.push(sql);
        const plan = (await original.call(this, `EXPLAIN ${sql}`, params, {
          format: 'TabSeparatedRaw',
        })) as { text(): string };
        plans.push(plan.text());
      }
      return original.call(this, sql, params, opts) as ReturnType<Session['queryBindAsync']>;
    } as Session['queryBindAsync']);
  }

  it('counts the whole hours from the hours projection, the partial ones and the actors from the entries, exactly', async () => {
    recordPlans();
    const answer = await stats({ ...RANGE, groupBy: ['event', 'actor.id'] });
    expect(answer.total).toBe(5);
    expect(answer.buckets.map((b) => [b.start, b.count])).toEqual([
      ['2025-04-02T10:00:00.000Z', 1],
      ['2025-04-02T11:00:00.000Z', 2],
      ['2025-04-02T12:00:00.000Z', 1],
      ['2025-04-02T13:00:00.000Z', 1],
    ]);
    const facets = Object.fromEntries(
      Object.entries(answer.facets ?? {}).map(([field, values]) => [
        field,
        values.map((v) => [v.value, v.count]),
      ]),
    );
    expect(facets.event).toEqual([
      ['hours.whole', 3],
      ['hours.end', 1],
      ['hours.start', 1],
    ]);
    expect(facets['actor.id']).toEqual([
      ['ann', 2],
      ['bob', 2],
      ['cy', 1],
    ]);
    // The buckets and the event facet from the projection; the actors in a statement of their own.
    expect(statements).toHaveLength(2);
    expect(plans[0]).toMatch(/ReadFromMergeTree \(hours\)/);
    expect(plans[1]).not.toMatch(/ReadFromMergeTree \(hours\)/);
  });

  it('reads the entries when there is a query or the buckets are shorter than an hour', async () => {
    recordPlans();
    const withQuery = await stats({ ...RANGE, query: 'hours', groupBy: ['event'] });
    expect(withQuery.total).toBe(5);
    const minutes = await stats({ ...RANGE, interval: '15m', groupBy: ['event'] });
    expect(minutes.total).toBe(5);
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(plan).not.toMatch(/ReadFromMergeTree \(hours\)/);
  });

  it('keeps counting exactly after a redaction rewrote entries of those hours', async () => {
    const before = await stats({ ...RANGE, groupBy: ['event'] });
    const { data: created } = await server.client.POST('/v1/users', {
      body: { email: 'hours.redacted@example.com', name: 'Hours' },
    });
    const user = created?.data;
    if (!user) throw new Error('no user');
    const { response } = await server.client.POST('/v1/logs', {
      body: {
        entries: [
          {
            event: 'hours.whole',
            actor: { type: 'user', id: user.id, email: 'hours.redacted@example.com' },
            result: 'success',
            timestamp: '2025-04-02T12:40:00.000Z',
          },
        ],
      },
    });
    expect(response.status).toBe(201);
    await server.searchable();
    const deleted = await server.client.DELETE('/v1/users/{id}', {
      params: { path: { id: user.id } },
    });
    expect(deleted.response.status).toBe(204);
    const after = await stats({ ...RANGE, groupBy: ['event', 'actor.email'] });
    expect(after.total).toBe(before.total + 1);
    expect(after.buckets.find((b) => b.start === '2025-04-02T12:00:00.000Z')?.count).toBe(2);
    const emails = after.facets?.['actor.email'] ?? [];
    expect(emails.map((v) => v.value)).not.toContain('hours.redacted@example.com');
  });
});
