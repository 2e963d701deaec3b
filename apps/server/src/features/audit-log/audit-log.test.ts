import type { SecadminClient } from '@secadmin/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, failure, uniqueEmail } from '../../../test/helpers/fixtures.js';
import {
  json,
  localDownload,
  raw,
  startTestServer,
  type TestServer,
} from '../../../test/helpers/server.js';
import { waitForExport, waitUntilPast } from '../../../test/helpers/wait.js';

type Entry = {
  event: string;
  actor: { type: string; id?: string; email?: string };
  result: 'success' | 'failure';
  timestamp?: string;
  target?: { id?: string; type?: string };
  context?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  traceId?: string;
};

async function ingest(client: SecadminClient, entries: Entry[]) {
  const { data } = await client.POST('/v1/logs', { body: { entries } as never });
  if (!data) throw new Error('no data');
  return data.data;
}

describe('audit log', () => {
  let server: TestServer;
  const actorId = `actor-${Date.now()}`;
  beforeAll(async () => {
    server = await startTestServer({ downloadTtlSeconds: 3 });
  });
  afterAll(() => server?.stop());

  it('ingests a batch atomically and acknowledges ids and millisecond timestamps in order', async () => {
    const acks = await ingest(server.client, [
      {
        event: 'user.login',
        actor: { id: actorId, email: 'ada@example.com', type: 'user' },
        result: 'success',
        timestamp: '2026-01-01T10:00:00.5Z',
      },
      { event: 'user.logout', actor: { id: actorId, type: 'user' }, result: 'success' },
    ]);
    expect(acks).toHaveLength(2);
    expect(acks[0]?.timestamp).toBe('2026-01-01T10:00:00.500Z');
    expect(acks[1]?.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const bad = await failure(
      server.client.POST('/v1/logs', {
        body: {
          entries: [
            {
              event: 'user.ok',
              actor: { type: 'user', id: `${actorId}-atomic` },
              result: 'success',
            },
            { event: 'NoDots', actor: { type: 'user' }, result: 'maybe' },
          ],
        } as never,
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(['body.entries[1].event', 'body.entries[1].result']),
    );
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { actor: `${actorId}-atomic` } },
    });
    expect(data?.data).toEqual([]);
    expect(await failure(server.client.POST('/v1/logs', { body: { entries: [] } }))).toMatchObject({
      status: 400,
    });
  });

  it('returns list fields in lists and full detail from get', async () => {
    const entry = {
      event: 'user.password_reset.failed',
      actor: { type: 'anonymous' },
      target: { id: 'acct-1', type: 'user' },
      context: {
        ip: '203.0.113.7',
        userAgent: 'UA',
        location: {
          city: 'Berlin',
          country: 'DE',
          region: 'BE',
          coordinates: { lat: 52.5, lng: 13.4 },
        },
      },
      result: 'failure' as const,
      traceId: 'trace-1',
      metadata: { reason: 'expired' },
    };
    const [ack] = await ingest(server.client, [entry]);
    const id = ack?.id as string;
    await server.sealer.flush();
    const { data: detail } = await server.client.GET('/v1/logs/{id}', { params: { path: { id } } });
    const hex = (length: number) => expect.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
    expect(detail?.data).toEqual({
      id,
      timestamp: ack?.timestamp,
      ...entry,
      origin: 'api',
      ingestedBy: expect.stringMatching(/^key_/),
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      seq: expect.any(Number),
      hash: hex(64),
      prevHash: hex(64),
      digests: { 'target.id': hex(64), 'metadata.reason': hex(64) },
      salts: { 'target.id': hex(32), 'metadata.reason': hex(32) },
      canonicalVersion: 2,
    });
    expect(detail?.data.actor).not.toHaveProperty('id');
    const { data: list } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.password_reset.failed'], limit: 1 } },
    });
    expect(list?.data[0]).toEqual({
      id,
      timestamp: ack?.timestamp,
      event: 'user.password_reset.failed',
      actor: { type: 'anonymous' },
      target: { id: 'acct-1', type: 'user' },
      context: { ip: '203.0.113.7', userAgent: 'UA', location: { city: 'Berlin', country: 'DE' } },
      result: 'failure',
      origin: 'api',
    });
    expect(
      await failure(
        server.client.GET('/v1/logs/{id}', {
          params: { path: { id: 'log_00000000000000000000000000' } },
        }),
      ),
    ).toMatchObject({
      status: 404,
    });
  });

  it('shows an entry with as many metadata keys as 16 KiB holds, digests and salts included', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`k${i}`, 0]));
    const [ack] = await ingest(server.client, [
      { event: 'wide.entry', actor: { type: 'service' }, result: 'success', metadata },
    ]);
    await server.sealer.flush();
    // The test server checks every answer against the spec's schema.
    const shown = await server.client.logs.get(ack?.id as string);
    expect(Object.keys(shown.digests ?? {})).toHaveLength(1_500);
    expect(Object.keys(shown.salts ?? {})).toHaveLength(1_500);
  });

  it('stores every value as sent, whatever it quotes (each column travels as one array literal)', async () => {
    const tricky = ['"', '\\', '\\"', '{a,b}', 'NULL', ' ', 'a,b', '{"x":1}', 'é 日本 😀', "it's"];
    const entries = tricky.map((text, i) => ({
      event: 'quoting.check',
      actor: { id: `${actorId}-q-${text}`, email: text, type: text },
      target: { id: text, type: text },
      context: {
        ip: text,
        userAgent: `${text}\n${text}`,
        location: {
          city: text,
          country: text,
          region: text,
          coordinates: { lat: [-0.000123, 1e-7, 89.999999, 0][i % 4] as number, lng: -180 },
        },
      },
      result: 'success' as const,
      timestamp: `2026-01-0${1 + (i % 9)}T10:00:00.${String(i).padStart(3, '0')}+02:00`,
      traceId: text,
      metadata: { text, nested: { list: [text, null, 1.5, true] } },
    }));
    const acks = await ingest(server.client, [
      ...entries,
      { event: 'quoting.check', actor: { type: 'user' }, result: 'failure' },
    ]);
    for (const [i, entry] of entries.entries()) {
      const ack = acks[i];
      const { data } = await server.client.GET('/v1/logs/{id}', {
        params: { path: { id: ack?.id as string } },
      });
      expect(data?.data).toMatchObject({
        ...entry,
        timestamp: new Date(entry.timestamp).toISOString(),
      });
    }
    const { data: bare } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: acks[entries.length]?.id as string } },
    });
    expect(bare?.data).not.toHaveProperty('target');
    expect(bare?.data).not.toHaveProperty('context');
    expect(bare?.data).not.toHaveProperty('traceId');
    expect(bare?.data.actor).toEqual({ type: 'user' });
  });

  it('filters by from (inclusive), to (exclusive), events, actor and result', async () => {
    const who = `filter-${Date.now()}`;
    const at = (s: string) => `2025-06-01T00:00:0${s}.000Z`;
    await ingest(server.client, [
      {
        event: 'user.login',
        actor: { id: who, type: 'user' },
        result: 'success',
        timestamp: at('1'),
      },
      {
        event: 'user.login',
        actor: { id: who, type: 'user' },
        result: 'failure',
        timestamp: at('2'),
      },
      {
        event: 'user.logout',
        actor: { id: who, type: 'user' },
        result: 'success',
        timestamp: at('3'),
      },
      {
        event: 'user.login',
        actor: { id: who, type: 'user' },
        result: 'success',
        timestamp: at('4'),
      },
    ]);
    const list = async (query: Record<string, unknown>) =>
      (
        (await server.client.GET('/v1/logs', { params: { query: { actor: who, ...query } } })).data
          ?.data ?? []
      ).map((e) => e.timestamp);
    expect(await list({})).toEqual([at('4'), at('3'), at('2'), at('1')]);
    expect(await list({ from: at('2'), to: at('4') })).toEqual([at('3'), at('2')]);
    expect(await list({ events: ['user.logout'] })).toEqual([at('3')]);
    expect(await list({ result: 'failure' })).toEqual([at('2')]);
    expect(await list({ events: ['user.login', 'user.logout'], result: 'success' })).toEqual([
      at('4'),
      at('3'),
      at('1'),
    ]);
    expect(
      await failure(
        server.client.GET('/v1/logs', { params: { query: { from: at('4'), to: at('2') } } }),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(server.client.GET('/v1/logs', { params: { query: { from: 'yesterday' } } })),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(server.client.GET('/v1/logs', { params: { query: { limit: 1001 } } })),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(
        server.client.GET('/v1/logs', { params: { query: { result: 'maybe' as never } } }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it('pages newest first without skipping or repeating while entries arrive', async () => {
    const who = `pager-${Date.now()}`;
    await ingest(
      server.client,
      Array.from({ length: 30 }, (_, i) => ({
        event: 'page.test',
        actor: { id: who, type: 'user' },
        result: 'success' as const,
        metadata: { i },
      })),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { data } = await server.client.GET('/v1/logs', {
        params: { query: { actor: who, limit: 7, ...(cursor ? { cursor } : {}) } },
      });
      seen.push(...(data?.data.map((e) => e.id) ?? []));
      await ingest(server.client, [
        { event: 'page.test', actor: { id: who, type: 'user' }, result: 'success' },
      ]);
      cursor = data?.pagination.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(30);
  });

  it('searches words, phrases, OR, exclusions and qualifiers with exact totals', async () => {
    const tag = `tag${Date.now()}`;
    await ingest(server.client, [
      {
        event: 'user.login',
        actor: { id: 'u-s1', email: 'grace@example.com', type: 'user' },
        result: 'success',
        context: { ip: '198.51.100.4' },
        metadata: { tag },
      },
      {
        event: 'user.login',
        actor: { id: 'u-s2', email: 'linus@example.com', type: 'user' },
        result: 'failure',
        metadata: { tag, note: 'bad password' },
      },
      {
        event: 'user.logout',
        actor: { id: 'u-s1', email: 'grace@example.com', type: 'user' },
        result: 'success',
        metadata: { tag },
      },
      {
        event: 'file.download',
        actor: { id: 'u-s3', type: 'user' },
        result: 'success',
        metadata: { tag, note: 'password manager export' },
      },
    ]);
    await server.searchable();
    const search = async (query: string, extra: Record<string, unknown> = {}) => {
      const { data } = await server.client.POST('/v1/logs/search', {
        body: { query: `${tag} ${query}`, ...extra },
      });
      if (!data) throw new Error('no data');
      return data;
    };
    expect((await search('login')).meta.totalHits).toBe(2);
    expect((await search('grace@example.com')).meta.totalHits).toBe(2);
    expect((await search('198.51.100.4')).meta.totalHits).toBe(1);
    expect((await search('"bad password"')).meta.totalHits).toBe(1);
    expect((await search('password')).meta.totalHits).toBe(2);
    expect((await search('-password')).meta.totalHits).toBe(2);
    expect((await search('logout OR download')).meta.totalHits).toBe(2);
    expect((await search('event:user.login')).meta.totalHits).toBe(2);
    expect((await search('event:user.*')).meta.totalHits).toBe(3);
    expect((await search('actor:linus@example.com')).meta.totalHits).toBe(1);
    expect((await search('actor:u-s1 -event:user.logout')).meta.totalHits).toBe(1);
    expect((await search('result:failure')).meta.totalHits).toBe(1);
    expect((await search('ip:198.51.100.4')).meta.totalHits).toBe(1);
    const paged = await search('', { limit: 3 });
    expect(paged.meta.totalHits).toBe(4);
    expect(paged.meta.totalHitsRelation).toBe('eq');
    expect(paged.data).toHaveLength(3);
    expect(Number.isInteger(paged.meta.searchTimeMs)).toBe(true);
    const rest = await search('', { limit: 3, cursor: paged.pagination.nextCursor });
    expect(rest.data).toHaveLength(1);
    expect(rest.pagination.hasMore).toBe(false);
    expect(new Set([...paged.data, ...rest.data].map((h) => h.id)).size).toBe(4);
  });

  it('matches qualifier values exactly, whatever characters they hold', async () => {
    const tag = `odd${Date.now()}`;
    const odd = `o'hara\\:x&!(y|z):*`;
    await ingest(server.client, [
      {
        event: 'user.login',
        actor: { id: odd, email: 'Ada.Odd@Example.com', type: 'user' },
        result: 'success',
        context: { ip: `${odd}-ip` },
        metadata: { tag },
      },
      {
        event: 'user.login',
        actor: { id: 'o', type: 'user' },
        result: 'success',
        metadata: { tag },
      },
    ]);
    await server.searchable();
    const total = async (query: string) => {
      const { data } = await server.client.POST('/v1/logs/search', {
        body: { query: `${tag} ${query}` },
      });
      return data?.meta.totalHits;
    };
    expect(await total(`actor:${odd}`)).toBe(1);
    expect(await total(`ip:${odd}-ip`)).toBe(1);
    expect(await total('actor:ada.odd@example.COM')).toBe(1);
    expect(await total(`-actor:${odd}`)).toBe(1);
    expect(await total("actor:o'hara")).toBe(0);
    expect(await total('actor:o*')).toBe(0);
    expect(await total('event:user.log*')).toBe(2);
  });

  it('highlights matches and escapes ingested HTML', async () => {
    const tag = `html${Date.now()}`;
    await ingest(server.client, [
      {
        event: 'user.login',
        actor: { type: 'user', id: 'x' },
        result: 'success',
        context: { userAgent: '<img src=x onerror=alert(1)> login' },
        metadata: { tag },
      },
    ]);
    await server.searchable();
    const { data } = await server.client.POST('/v1/logs/search', {
      body: { query: `${tag} login` },
    });
    const hit = data?.data[0];
    expect(Object.keys(hit ?? {}).sort()).toEqual([
      'actor',
      'event',
      'highlights',
      'id',
      'origin',
      'result',
      'timestamp',
    ]);
    expect(hit?.highlights.event).toBe('user.<em>login</em>');
    expect(hit?.highlights['context.userAgent']).toBe(
      '&lt;img src=x onerror=alert(1)&gt; <em>login</em>',
    );
    expect(hit?.highlights[`metadata.tag`]).toBe(`<em>${tag}</em>`);
  });

  it('refuses a query that cannot be parsed with a 400 saying where, and never answers 500', async () => {
    const search = (query: string) =>
      raw(server, '/v1/logs/search', {
        method: 'POST',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    // The test server checks every answer against the spec: `position` included.
    const res = await search('😀 login "unclosed phrase');
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual({
      code: 'invalid_request',
      message: 'The query cannot be parsed.',
      details: [{ field: 'body.query', message: 'unclosed quote at character 9', position: 9 }],
    });
    for (const query of ['a OR', '-', 'OR OR', 'event:', 'origin:elsewhere', ':::', '((']) {
      expect((await search(query)).status, query).toBe(400);
    }
    expect((await search("'; DROP TABLE log_entries; --")).status).toBe(200);
    expect(
      await failure(server.client.POST('/v1/logs/search', { body: { query: 'x', limit: 1001 } })),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(server.client.POST('/v1/logs/search', { body: { query: 'x'.repeat(501) } })),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(server.client.POST('/v1/logs/search', { body: { query: '' } })),
    ).toMatchObject({ status: 400 });
  });

  it('exports CSV and JSON end to end, faithfully and safely', async () => {
    const who = `export-${Date.now()}`;
    const entries: Entry[] = [
      {
        event: 'user.login',
        actor: { id: who, email: 'x@example.com', type: 'user' },
        result: 'success',
        timestamp: '2024-03-01T00:00:01.000Z',
        metadata: { k: 'v, "quoted"' },
      },
      {
        event: 'user.logout',
        actor: { id: who, type: 'user' },
        result: 'success',
        timestamp: '2024-03-01T00:00:02.000Z',
        context: { userAgent: '=HYPERLINK("http://evil")' },
      },
      {
        event: 'user.login',
        actor: { id: who, type: 'user' },
        result: 'failure',
        timestamp: '2024-03-01T00:00:03.000Z',
        context: { location: { coordinates: { lat: -33.5, lng: 151.2 } } },
      },
    ];
    await ingest(server.client, entries);
    const range = { from: '2024-03-01T00:00:00Z', to: '2024-03-01T00:00:03Z' };

    const { data: created } = await server.client.POST('/v1/logs/export', {
      body: { ...range, format: 'csv' },
    });
    expect(created?.data).toMatchObject({
      status: 'processing',
      format: 'csv',
      estimatedRecords: 2,
    });
    expect(Object.keys(created?.data ?? {}).sort()).toEqual([
      'createdAt',
      'estimatedRecords',
      'exportId',
      'format',
      'status',
    ]);
    const done = await waitForExport(server.client, created?.data.exportId as string);
    expect(done).toMatchObject({ status: 'completed', totalRecords: 2 });
    expect(done.downloadUrl).toMatch(
      new RegExp(`^http://secadmin.test/downloads/${done.exportId}\\.csv\\?token=`),
    );
    expect(Date.parse(done.expiresAt as string) - Date.parse(done.completedAt as string)).toBe(
      3000,
    );
    const csv = await fetch(localDownload(server, done.downloadUrl as string));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="${done.exportId}.csv"`,
    );
    const text = await csv.text();
    expect(Buffer.byteLength(text)).toBe(done.fileSizeBytes);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'id,timestamp,event,actor.id,actor.email,actor.type,target.id,target.type,context.ip,context.userAgent,context.location.city,context.location.country,context.location.region,context.location.coordinates.lat,context.location.coordinates.lng,result,traceId,origin,ingestedBy,receivedAt,metadata',
    );
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[1]).toMatch(/,success,,api,key_\w{26},\d{4}-\d\d-\d\dT[\d:]{8}\.\d{3}Z,\{\}$/);
    expect(lines[2]).toContain('"{""k"":""v, \\""quoted\\""""}"');
    expect(lines).toHaveLength(4);

    const { data: jsonExport } = await server.client.POST('/v1/logs/export', {
      body: {
        from: '2024-03-01T00:00:00Z',
        to: '2024-03-02T00:00:00Z',
        events: ['user.login'],
        includeMetadata: false,
      },
    });
    const jsonDone = await waitForExport(server.client, jsonExport?.data.exportId as string);
    const file = await fetch(localDownload(server, jsonDone.downloadUrl as string));
    expect(file.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = (await json(file)) as Record<string, unknown>[];
    // One JSON array of full entries, nothing else: no entry here is redacted.
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed.some((e) => 'redactedBy' in e || 'redactionProofs' in e)).toBe(false);
    expect(parsed.map((e) => e.timestamp)).toEqual([
      '2024-03-01T00:00:03.000Z',
      '2024-03-01T00:00:01.000Z',
    ]);
    expect(parsed.every((e) => !('metadata' in e))).toBe(true);
    expect(parsed[0]).toMatchObject({
      event: 'user.login',
      result: 'failure',
      origin: 'api',
      ingestedBy: expect.stringMatching(/^key_/),
      context: { location: { coordinates: { lat: -33.5, lng: 151.2 } } },
    });
  });

  it('refuses a wrong token (403) and an expired URL (410, file deleted)', async () => {
    const { data } = await server.client.POST('/v1/logs/export', {
      body: { from: '2024-01-01', to: '2024-12-31', format: 'json' },
    });
    const done = await waitForExport(server.client, data?.data.exportId as string);
    const url = localDownload(server, done.downloadUrl as string);
    expect((await fetch(url.replace(/token=.*/, 'token=forged'))).status).toBe(403);
    expect((await fetch(url.replace('.json?', '.csv?'))).status).toBe(404);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
    await ok.arrayBuffer();
    await waitUntilPast('the download URL to expire', done.expiresAt as string);
    const gone = await fetch(url);
    expect(gone.status).toBe(410);
    expect((await json(gone)).error.code).toBe('gone');
    expect((await fetch(url)).status).toBe(410);
  });

  it('rejects invalid exports: from ≥ to, unknown format', async () => {
    expect(
      await failure(
        server.client.POST('/v1/logs/export', { body: { from: '2024-02-01', to: '2024-01-01' } }),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(
        server.client.POST('/v1/logs/export', {
          body: { from: '2024-01-01', to: '2024-02-01', format: 'xml' as never },
        }),
      ),
    ).toMatchObject({
      status: 400,
    });
    expect(
      await failure(
        server.client.GET('/v1/logs/export/{exportId}', {
          params: { path: { exportId: 'exp_00000000000000000000000000' } },
        }),
      ),
    ).toMatchObject({
      status: 404,
    });
  });

  it('records provenance: origin, the ingesting key and the receipt time, set by the server only', async () => {
    const user = await createUser(server.client);
    const { data: own } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.created'], origin: 'service', limit: 20 } },
    });
    const serviceItem = own?.data.find((e) => e.target?.id === user.id);
    expect(serviceItem?.origin).toBe('service');
    const { data: serviceEntry } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: serviceItem?.id as string } },
    });
    expect(serviceEntry?.data.origin).toBe('service');
    expect(serviceEntry?.data).not.toHaveProperty('ingestedBy');
    expect(serviceEntry?.data).not.toHaveProperty('receivedAt');

    const who = `provenance-${Date.now()}`;
    const before = Date.now();
    const [ack] = await ingest(server.client, [
      {
        event: 'user.created',
        actor: { id: who, type: 'api_key' },
        target: { id: user.id, type: 'user' },
        result: 'success',
        timestamp: '2020-01-01T00:00:00.000Z',
      },
    ]);
    const after = Date.now();
    const { data: ingested } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: ack?.id as string } },
    });
    // The same key wrote the service entry (its actor) and ingested this one.
    expect(ingested?.data).toMatchObject({ origin: 'api', ingestedBy: serviceItem?.actor.id });
    const receivedAt = Date.parse(ingested?.data.receivedAt as string);
    expect(receivedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(receivedAt).toBeLessThanOrEqual(after + 1000);

    const byOrigin = async (origin: 'service' | 'api') => {
      const { data } = await server.client.GET('/v1/logs', {
        params: { query: { events: ['user.created'], origin, limit: 1000 } },
      });
      return data?.data ?? [];
    };
    const apiOnly = await byOrigin('api');
    expect(apiOnly.map((e) => e.id)).toContain(ack?.id);
    expect(apiOnly.every((e) => e.origin === 'api')).toBe(true);
    const serviceOnly = await byOrigin('service');
    expect(serviceOnly.map((e) => e.id)).not.toContain(ack?.id);
    expect(serviceOnly.every((e) => e.origin === 'service')).toBe(true);

    await server.searchable();
    const searchBy = async (origin: 'service' | 'api') => {
      const { data } = await server.client.POST('/v1/logs/search', {
        body: { query: user.id, origin },
      });
      return data?.data ?? [];
    };
    expect((await searchBy('api')).map((h) => [h.id, h.origin])).toEqual([[ack?.id, 'api']]);
    expect((await searchBy('service')).map((h) => [h.id, h.origin])).toEqual([
      [serviceItem?.id, 'service'],
    ]);

    const forged = await failure(
      server.client.POST('/v1/logs', {
        body: {
          entries: [
            {
              event: 'user.created',
              actor: { type: 'api_key' },
              result: 'success',
              origin: 'service',
              ingestedBy: 'key_00000000000000000000000000',
              receivedAt: '2026-01-01T00:00:00.000Z',
              seq: 1,
              hash: '0'.repeat(64),
              prevHash: '0'.repeat(64),
              digests: {},
              salts: {},
              canonicalVersion: 2,
            },
          ],
        } as never,
      }),
    );
    expect(forged.status).toBe(400);
    expect(forged.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(
        [
          'origin',
          'ingestedBy',
          'receivedAt',
          'seq',
          'hash',
          'prevHash',
          'digests',
          'salts',
          'canonicalVersion',
        ].map((field) => `body.entries[0].${field}`),
      ),
    );
  });

  it('accepts past timestamps and at most 5 minutes in the future', async () => {
    const who = `future-${Date.now()}`;
    const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
    const entry = (timestamp: string): Entry => ({
      event: 'clock.check',
      actor: { id: who, type: 'user' },
      result: 'success',
      timestamp,
    });
    const tooLate = await failure(
      server.client.POST('/v1/logs', {
        body: { entries: [entry(at(-60_000)), entry(at(10 * 60_000))] } as never,
      }),
    );
    expect(tooLate.status).toBe(400);
    expect(tooLate.details.map((d) => d.field)).toEqual(['body.entries[1].timestamp']);
    // Before 1970 an id could not carry the time (it came out as `log_undefined…`).
    for (const early of ['1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z']) {
      const tooEarly = await failure(
        server.client.POST('/v1/logs', { body: { entries: [entry(early)] } as never }),
      );
      expect(tooEarly.status).toBe(400);
      expect(tooEarly.details).toEqual([
        { field: 'body.entries[0].timestamp', message: 'must be at or after 1970-01-01T00:00:00Z' },
      ]);
    }
    // Well inside the window on either side, whatever the machine's speed.
    const acks = await ingest(server.client, [entry('2001-01-01T00:00:00Z'), entry(at(60_000))]);
    expect(acks).toHaveLength(2);
    const { data } = await server.client.GET('/v1/logs', { params: { query: { actor: who } } });
    expect(data?.data).toHaveLength(2);
  });

  it('writes its own entries for mutations, in the same transaction', async () => {
    const user = await createUser(server.client);
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.created'], limit: 5 } },
    });
    const entry = data?.data.find((e) => e.target?.id === user.id);
    expect(entry).toMatchObject({
      event: 'user.created',
      actor: { type: 'api_key' },
      target: { id: user.id, type: 'user' },
      result: 'success',
    });
    const full = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: entry?.id as string } },
    });
    expect(full.data?.data.metadata).toEqual({ principal: 'service:root' });
  });

  it('redacts a deleted user email only in the entries linked to the user, and counts them', async () => {
    const email = uniqueEmail('Redact');
    const user = await createUser(server.client, { email });
    const day = { from: '2024-05-01', to: '2024-05-02' };
    const acks = await ingest(server.client, [
      {
        event: 'user.login',
        actor: { id: user.id, email, type: 'user' },
        result: 'success',
        timestamp: '2024-05-01T00:00:00.000Z',
        metadata: { note: `signed in as ${email}` },
      },
      {
        event: 'admin.impersonate',
        actor: { id: 'admin', email: 'admin@example.com', type: 'user' },
        target: { id: user.id, type: 'user' },
        result: 'success',
        timestamp: '2024-05-01T00:00:01.000Z',
        metadata: { note: `acting as ${email.toUpperCase()}`, kept: 'other@example.com' },
      },
      {
        event: 'user.login',
        actor: { id: 'someone-else', email: email.toUpperCase(), type: 'user' },
        target: { id: email, type: 'user' },
        result: 'success',
        timestamp: '2024-05-01T00:00:02.000Z',
        metadata: { note: `mentions ${email}` },
      },
      {
        event: 'user.logout',
        actor: { id: user.id, type: 'user' },
        result: 'success',
        timestamp: '2024-05-01T00:00:03.000Z',
      },
    ]);
    const ids = acks.map((a) => a.id);
    const entry = async (id: string) =>
      (await server.client.GET('/v1/logs/{id}', { params: { path: { id } } })).data?.data;
    // In the store before the deletion: what search shows after it is the redaction's doing.
    await server.searchable();
    const unrelatedBefore = await entry(ids[2] as string);

    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });

    const own = await entry(ids[0] as string);
    expect(own?.actor).toEqual({ id: user.id, email: null, type: 'user' });
    expect(own?.metadata).toEqual({ note: '[redacted]' });
    const about = await entry(ids[1] as string);
    expect(about?.actor).toEqual({ id: 'admin', email: 'admin@example.com', type: 'user' });
    expect(about?.metadata).toEqual({ note: '[redacted]', kept: 'other@example.com' });
    expect(await entry(ids[2] as string)).toEqual(unrelatedBefore);
    expect((await entry(ids[3] as string))?.actor).toEqual({ id: user.id, type: 'user' });

    const { data: deleted } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.deleted'], origin: 'service', limit: 50 } },
    });
    const deletion = deleted?.data.find((e) => e.target?.id === user.id);
    const [own0, about1] = [await entry(ids[0] as string), await entry(ids[1] as string)];
    // The sealed user.deleted entry names what the redaction removed, entry by entry.
    expect((await entry(deletion?.id as string))?.metadata).toEqual({
      principal: 'service:root',
      redactedEntries: 2,
      redactions: [
        { id: ids[0], seq: own0?.seq, fields: ['actor.email', 'metadata.note'] },
        { id: ids[1], seq: about1?.seq, fields: ['metadata.note'] },
      ],
    });

    // The search index follows: only the unrelated entry still mentions the address.
    const { data: hits } = await server.client.POST('/v1/logs/search', {
      body: { query: email, ...day },
    });
    expect(hits?.data.map((h) => h.id)).toEqual([ids[2]]);
    const { data: exp } = await server.client.POST('/v1/logs/export', {
      body: { ...day, format: 'csv' },
    });
    const done = await waitForExport(server.client, exp?.data.exportId as string);
    const text = await (await fetch(localDownload(server, done.downloadUrl as string))).text();
    const rows = text.split('\r\n').filter(Boolean);
    expect(rows).toHaveLength(5);
    expect(rows.filter((r) => r.toLowerCase().includes(email.toLowerCase()))).toHaveLength(1);
  });
});

describe('exports across a restart', () => {
  it('finishes an export that was processing when the server stopped', async () => {
    let server = await startTestServer();
    try {
      await ingest(
        server.client,
        Array.from({ length: 50 }, (_, i) => ({
          event: 'restart.test',
          actor: { type: 'user', id: `r${i}` },
          result: 'success' as const,
          timestamp: '2023-01-01T00:00:00.000Z',
        })),
      );
      await server.worker.stop(); // nothing will work on it before the restart
      const { data } = await server.client.POST('/v1/logs/export', {
        body: { from: '2023-01-01', to: '2023-01-02' },
      });
      const exportId = data?.data.exportId as string;
      expect(
        (await server.client.GET('/v1/logs/export/{exportId}', { params: { path: { exportId } } }))
          .data?.data.status,
      ).toBe('processing');
      server = await server.restart();
      const done = await waitForExport(server.client, exportId);
      expect(done).toMatchObject({ status: 'completed', totalRecords: 50 });
      const parsed = (await (
        await fetch(localDownload(server, done.downloadUrl as string))
      ).json()) as unknown[];
      expect(Array.isArray(parsed)).toBe(true);
      expect(parsed).toHaveLength(50);
    } finally {
      await server.stop();
    }
  });
});

describe('export limits', () => {
  it('lets at most 5 exports per key be processing, even when requested at once', async () => {
    const server = await startTestServer();
    try {
      await server.worker.stop(); // keep them all processing
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          raw(server, '/v1/logs/export', {
            method: 'POST',
            headers: {
              authorization: `Bearer ${server.rootKey}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ from: '2024-01-01', to: '2024-02-01' }),
          }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
      const limited = responses.find((r) => r.status === 429);
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await json(limited as Response)).error.code).toBe('rate_limited');
    } finally {
      await server.stop();
    }
  });
});
