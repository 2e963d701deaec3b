import type { components } from '@secadmin/api-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, failure } from '../../../../test/helpers/fixtures.js';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';

type StatsRequest = components['schemas']['LogStatsRequest'];
type Entry = components['schemas']['LogEntryInput'];

const entry = (timestamp: string, more: Partial<Entry> = {}): Entry => ({
  event: 'user.login',
  actor: { type: 'user', id: 'user_a' },
  result: 'success',
  timestamp,
  ...more,
});

describe('log stats', () => {
  let server: TestServer;
  const stats = async (body: StatsRequest) => {
    const { data } = await server.client.POST('/v1/logs/stats', { body });
    if (!data) throw new Error('no data');
    return data.data;
  };
  const refusal = async (body: string) => {
    const res = await postText(server, '/v1/logs/stats', body);
    return { status: res.status, body: await json(res) };
  };
  const ingest = async (entries: Entry[]) => {
    const { response } = await server.client.POST('/v1/logs', { body: { entries } });
    if (response.status !== 201) throw new Error(`ingest failed: ${response.status}`);
  };

  beforeAll(async () => {
    server = await startTestServer();
    // Each test reads a day of its own, long past: the service's own entries are written now.
    await ingest([
      entry('2025-03-10T09:59:59.999Z', { event: 'edge.before' }),
      entry('2025-03-10T10:00:00.000Z'),
      entry('2025-03-10T10:14:59.999Z', {
        result: 'failure',
        actor: { type: 'user', id: 'user_b' },
      }),
      entry('2025-03-10T10:30:00.000Z', {
        event: 'user.logout',
        target: { type: 'user', id: 'user_a' },
      }),
      entry('2025-03-10T11:00:00.000Z', { event: 'edge.after' }),
    ]);
    // Facets: fac.c ×5, fac.a ×3 and fac.b ×3 (a tie), fac.d … fac.l ×1 (nine more singles).
    const counts: [string, number][] = [
      ['fac.c', 5],
      ['fac.b', 3],
      ['fac.a', 3],
      ...'defghijkl'.split('').map((c): [string, number] => [`fac.${c}`, 1]),
    ];
    const facetEntries: Entry[] = [];
    let second = 0;
    for (const [event, n] of counts) {
      for (let i = 0; i < n; i++) {
        const ts = new Date(Date.UTC(2025, 3, 1, 12, 0, second++)).toISOString();
        // Two actors tie at 2 entries: `B-actor` sorts before `a-actor` by code point.
        const actor =
          second <= 2
            ? { type: 'user', id: 'a-actor' }
            : second <= 4
              ? { type: 'user', id: 'B-actor' }
              : { type: 'system' };
        facetEntries.push(
          entry(ts, { event, actor, ...(i === 0 ? { target: { type: 'doc' } } : {}) }),
        );
      }
    }
    await ingest(facetEntries);
    // Search syntax: a day of entries with words, a phrase, qualifiers.
    await ingest([
      entry('2025-05-01T01:00:00Z', {
        event: 'doc.viewed',
        actor: { type: 'user', id: 'user_q', email: 'ada@example.com' },
        metadata: { note: 'quarterly report draft' },
        context: { ip: '10.1.2.3' },
      }),
      entry('2025-05-01T02:00:00Z', {
        event: 'doc.viewed',
        actor: { type: 'user', id: 'user_r', email: 'bob@example.com' },
        metadata: { note: 'report quarterly' },
        result: 'failure',
      }),
      entry('2025-05-01T03:00:00Z', {
        event: 'doc.deleted',
        actor: { type: 'user', id: 'user_q', email: 'ada@example.com' },
        metadata: { note: 'quarterly report' },
        context: { ip: '10.9.9.9' },
      }),
    ]);
    await server.searchable();
  }, 120_000);
  afterAll(() => server?.stop());

  it('counts [from, to) in UTC-aligned buckets with no gaps', async () => {
    const data = await stats({
      from: '2025-03-10T10:00:00Z',
      to: '2025-03-10T11:00:00Z',
      interval: '15m',
    });
    expect(data).toEqual({
      interval: '15m',
      buckets: [
        { start: '2025-03-10T10:00:00.000Z', count: 2 },
        { start: '2025-03-10T10:15:00.000Z', count: 0 },
        { start: '2025-03-10T10:30:00.000Z', count: 1 },
        { start: '2025-03-10T10:45:00.000Z', count: 0 },
      ],
      total: 3,
      totalRelation: 'eq',
    });
    expect(data).not.toHaveProperty('facets');
  });

  it('starts at the boundary holding from, counting only from on, and ends before to', async () => {
    const data = await stats({
      from: '2025-03-10T10:00:00.001Z',
      to: '2025-03-10T10:30:00.001Z',
      interval: '15m',
    });
    expect(data.buckets).toEqual([
      { start: '2025-03-10T10:00:00.000Z', count: 1 },
      { start: '2025-03-10T10:15:00.000Z', count: 0 },
      { start: '2025-03-10T10:30:00.000Z', count: 1 },
    ]);
    expect(data.total).toBe(2);
    const offset = await stats({
      from: '2025-03-10T11:00:00+01:00',
      to: '2025-03-10T12:00:00+01:00',
    });
    expect(offset).toMatchObject({ interval: '1m', total: 3 });
    expect(offset.buckets).toHaveLength(60);
    expect(offset.buckets[0]).toEqual({ start: '2025-03-10T10:00:00.000Z', count: 1 });
    expect(offset.buckets[14]).toEqual({ start: '2025-03-10T10:14:00.000Z', count: 1 });
    expect(offset.buckets.filter((b) => b.count > 0)).toHaveLength(3);
  });

  it('answers an empty range with every bucket at 0', async () => {
    const data = await stats({ from: '2024-02-28', to: '2024-03-01', interval: '6h' });
    expect(data.buckets.map((b) => b.start)).toEqual(
      ['2024-02-28', '2024-02-29'].flatMap((d) =>
        ['00', '06', '12', '18'].map((h) => `${d}T${h}:00:00.000Z`),
      ),
    );
    expect(data.buckets.every((b) => b.count === 0)).toBe(true);
    expect(data.total).toBe(0);
    expect(
      await stats({ from: '2024-02-28', to: '2024-03-01', groupBy: ['event', 'actor.id'] }),
    ).toMatchObject({ interval: '15m', total: 0, facets: { event: [], 'actor.id': [] } });
  });

  it('chooses auto at the edges: 200 buckets of 1m, 201 minutes in 5m', async () => {
    const edge = await stats({ from: '2025-03-10T08:00:00Z', to: '2025-03-10T11:20:00Z' });
    expect(edge).toMatchObject({ interval: '1m', total: 5 });
    expect(edge.buckets).toHaveLength(200);
    const past = await stats({ from: '2025-03-10T08:00:00Z', to: '2025-03-10T11:21:00Z' });
    expect(past).toMatchObject({ interval: '5m', total: 5 });
    expect(past.buckets).toHaveLength(41);
    const years = await stats({ from: '2000-01-01', to: '2026-01-01' });
    expect(years.interval).toBe('1d');
    expect(years.buckets).toHaveLength(9497);
  });

  it('answers 10,000 buckets and refuses 10,001 with a 400 naming the interval', async () => {
    const most = await stats({
      from: '2025-03-03T00:00:00Z',
      to: '2025-03-09T22:40:00Z',
      interval: '1m',
    });
    expect(most.buckets).toHaveLength(10_000);
    expect(most.buckets.at(-1)?.start).toBe('2025-03-09T22:39:00.000Z');
    const bad = await failure(
      server.client.POST('/v1/logs/stats', {
        body: { from: '2025-03-03T00:00:00Z', to: '2025-03-09T22:41:00Z', interval: '1m' },
      }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(bad.details).toEqual([
      { field: 'body.interval', message: expect.stringContaining('more than 10000') },
    ]);
  });

  it('lists the 10 most frequent values of each field: count descending, then value by code point', async () => {
    const data = await stats({
      from: '2025-04-01',
      to: '2025-04-02',
      groupBy: ['event', 'actor.id', 'actor.type', 'target.type', 'result', 'origin'],
    });
    expect(data.total).toBe(20);
    expect(data.facets?.event).toEqual([
      { value: 'fac.c', count: 5 },
      { value: 'fac.a', count: 3 },
      { value: 'fac.b', count: 3 },
      ...'defghij'.split('').map((c) => ({ value: `fac.${c}`, count: 1 })),
    ]);
    // Anonymous actors have no id, entries without a target no target type: not counted.
    expect(data.facets?.['actor.id']).toEqual([
      { value: 'B-actor', count: 2 },
      { value: 'a-actor', count: 2 },
    ]);
    expect(data.facets?.['actor.type']).toEqual([
      { value: 'system', count: 16 },
      { value: 'user', count: 4 },
    ]);
    expect(data.facets?.['target.type']).toEqual([{ value: 'doc', count: 12 }]);
    expect(data.facets?.result).toEqual([{ value: 'success', count: 20 }]);
    expect(data.facets?.origin).toEqual([{ value: 'api', count: 20 }]);
    const one = await stats({ from: '2025-04-01', to: '2025-04-02', groupBy: ['result'] });
    expect(Object.keys(one.facets ?? {})).toEqual(['result']);
  });

  it('counts what a search with the same query finds: words, phrases, OR, qualifiers, negation', async () => {
    const range = { from: '2025-05-01', to: '2025-05-02' };
    const cases: [string, number][] = [
      ['quarterly report', 3],
      ['"quarterly report"', 2],
      ['"report quarterly" OR deleted', 2],
      ['report -deleted', 2],
      ['event:doc.viewed', 2],
      ['event:doc.*', 3],
      ['actor:ada@example.com', 2],
      ['actor:user_r', 1],
      ['result:failure', 1],
      ['ip:10.1.2.3', 1],
      ['-event:doc.viewed', 1],
      ['nothing_matches_this', 0],
    ];
    for (const [query, expected] of cases) {
      const data = await stats({ ...range, query, groupBy: ['event'] });
      const { data: search } = await server.client.POST('/v1/logs/search', {
        body: { ...range, query, exactTotal: true, limit: 1 },
      });
      expect(data.total, query).toBe(expected);
      expect(search?.meta.totalHits, query).toBe(expected);
      expect(
        data.facets?.event?.reduce((sum, f) => sum + f.count, 0),
        query,
      ).toBe(expected);
    }
    const all = await stats(range);
    expect(all.total).toBe(3);
  });

  it('refuses bad ranges, intervals and fields with a 400 saying what to send', async () => {
    const base = { from: '2025-05-01', to: '2025-05-02' };
    const cases: [unknown, string][] = [
      [{ ...base, from: '2025-05-02' }, 'body.from'],
      [{ ...base, to: '2025-04-30' }, 'body.from'],
      [{ to: base.to }, 'body.from'],
      [{ from: base.from }, 'body.to'],
      [{ ...base, from: 'yesterday' }, 'body.from'],
      [{ ...base, from: '2025-02-30' }, 'body.from'],
      [{ ...base, interval: '2h' }, 'body.interval'],
      [{ ...base, interval: 60 }, 'body.interval'],
      [{ ...base, groupBy: ['context.userAgent'] }, 'body.groupBy[0]'],
      [{ ...base, groupBy: ['event', 'event'] }, 'body.groupBy'],
      [{ ...base, groupBy: [] }, 'body.groupBy'],
      [{ ...base, groupBy: 'event' }, 'body.groupBy'],
      [{ ...base, groupBy: Array.from({ length: 10_000 }, () => 'event') }, 'body.groupBy'],
      [{ ...base, groupBy: [{ field: 'event' }] }, 'body.groupBy[0]'],
      [{ ...base, query: '' }, 'body.query'],
      [{ ...base, query: 42 }, 'body.query'],
      [{ ...base, query: 'x'.repeat(501) }, 'body.query'],
      [{ ...base, query: '- "" OR' }, 'body.query'],
      [{ ...base, query: 'result:maybe' }, 'body.query'],
      [{ ...base, query: Array.from({ length: 65 }, (_, i) => `w${i}`).join(' ') }, 'body.query'],
      [{ ...base, origin: 'api' }, 'body.origin'],
      [{ ...base, exactTotal: true }, 'body.exactTotal'],
    ];
    for (const [body, field] of cases) {
      const text = JSON.stringify(body);
      const { status, body: answer } = await refusal(text);
      expect(status, text.slice(0, 200)).toBe(400);
      expect(
        answer.error.details.map((d: { field: string }) => d.field),
        text.slice(0, 200),
      ).toContain(field);
      for (const detail of answer.error.details) expect(detail.message).not.toBe('');
    }
    for (const text of [
      '[]',
      '"from"',
      'null',
      '{"from":',
      '{}',
      '{"from":"2025-05-01","to":"2025-05-02","__proto__":{"interval":"1m"}}',
      '{"from":"2025-05-01","to":"2025-05-02","constructor":{}}',
    ]) {
      expect((await refusal(text)).status, text).toBe(400);
    }
  });

  it('needs logs:search: a key without it gets 403, a key granted it gets the counts', async () => {
    const range = { from: '2025-03-10T10:00:00Z', to: '2025-03-10T11:00:00Z' };
    const principal = `service:stats-${Date.now()}`;
    const key = await createKey(server.client, principal);
    const send = (secret: string | undefined) =>
      raw(server, '/v1/logs/stats', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        },
        body: JSON.stringify(range),
      });
    expect((await send(undefined)).status).toBe(401);
    const forbidden = await send(key.secret);
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(await json(forbidden))).not.toContain('user.login');
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['logs:list'],
      resources: ['logs'],
    });
    expect((await send(key.secret)).status).toBe(403);
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['logs:search'],
      resources: ['logs'],
    });
    const allowed = await send(key.secret);
    expect(allowed.status).toBe(200);
    expect((await json(allowed)).data.total).toBe(3);
  });
});
