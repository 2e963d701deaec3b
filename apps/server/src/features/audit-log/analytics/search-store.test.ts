import { randomBytes } from 'node:crypto';
import type { components } from '@secadmin/api-types';
import { type ClickHouseHttp, startClickHouseHttp } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, retentionOn, uniqueEmail } from '../../../../test/helpers/fixtures.js';
import {
  json,
  localDownload,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { waitFor, waitForExport } from '../../../../test/helpers/wait.js';
import type { Config } from '../../../config.js';
import { openClickHouseServer } from '../../../storage/analytics/clickhouse-server.js';
import { openEmbeddedClickHouse } from '../../../storage/analytics/embedded-clickhouse.js';
import { dropTable, LIVE_TABLE, tableName } from './table.js';

type Entry = components['schemas']['LogEntryInput'];

const entry = (more: Partial<Entry> = {}): Entry => ({
  event: 'doc.viewed',
  actor: { type: 'user', id: 'user_a' },
  result: 'success',
  ...more,
});

/**
 * Both paths of the store: the engine embedded in this process, and a ClickHouse HTTP server
 * (the same engine behind ClickHouse's HTTP interface, in a process of its own: no ClickHouse
 * server installs on these machines).
 */
describe.each(['embedded', 'server'] as const)('search and statistics on the %s store', (path) => {
  let clickhouse: ClickHouseHttp | undefined;
  let server: TestServer;
  const analytics = (): Partial<Config> =>
    clickhouse
      ? {
          analytics: {
            url: `${clickhouse.url}/t_${randomBytes(6).toString('hex')}`,
            cluster: undefined,
            embeddedPath: '',
            embeddedDatabase: '',
          },
        }
      : {};
  const ingest = async (entries: Entry[]) => {
    const { data, response } = await server.client.POST('/v1/logs', { body: { entries } });
    if (response.status !== 201 || !data) throw new Error(`ingest failed: ${response.status}`);
    return data.data.map((e) => e.id);
  };
  const search = async (body: components['schemas']['SearchRequest']) => {
    const res = await postText(server, '/v1/logs/search', JSON.stringify(body));
    expect(res.status).toBe(200);
    return json(res);
  };
  const stats = async (body: components['schemas']['LogStatsRequest']) => {
    const res = await postText(server, '/v1/logs/stats', JSON.stringify(body));
    expect(res.status).toBe(200);
    return json(res);
  };
  /** The store the server writes to, opened beside it (the embedded one shares its session). */
  const storeOf = (s: TestServer) =>
    s.config.analytics.url
      ? Promise.resolve(
          openClickHouseServer({
            url: s.config.analytics.url,
            cluster: undefined,
            requestTimeoutMs: 30_000,
          }),
        )
      : openEmbeddedClickHouse({
          path: s.config.analytics.embeddedPath,
          database: s.config.analytics.embeddedDatabase,
          maxThreads: 1,
          maxQueryMemoryBytes: 256 * 1024 * 1024,
        });

  beforeAll(async () => {
    if (path === 'server') clickhouse = await startClickHouseHttp();
    server = await startTestServer(analytics());
  });
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it('finds an acknowledged entry once the feeder has run, and says how far the store holds', async () => {
    const word = `fresh${randomBytes(4).toString('hex')}`;
    const [id] = await ingest([entry({ metadata: { note: word } })]);
    // The feeder runs by itself: no test hook here, only waiting for what the contract promises.
    await waitFor(
      'the entry to be searchable',
      async () => (await search({ query: word })).data.length === 1,
    );
    const found = await search({ query: word });
    expect(found.data[0].id).toBe(id);
    expect(found.meta.totalHitsRelation).toBe('eq');
    const { data: logged } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: id as string } },
    });
    expect(found.meta.indexedThroughSeq).toBeGreaterThanOrEqual(
      logged?.data.seq ?? Number.MAX_VALUE,
    );
    expect(found.meta.indexedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const counted = await stats({
      query: word,
      from: '2020-01-01T00:00:00Z',
      to: '2100-01-01T00:00:00Z',
      interval: '1d',
    }).catch(() => undefined);
    // 10,000 buckets at most: a range this wide asks for days and is refused; a year is enough.
    expect(counted === undefined || counted.data.total === 1).toBe(true);
  });

  it('counts exactly, however many entries match', async () => {
    const word = `many${randomBytes(4).toString('hex')}`;
    const batch = Array.from({ length: 1000 }, () => entry({ metadata: { note: word } }));
    for (let i = 0; i < 11; i++) await ingest(batch);
    await ingest([entry({ metadata: { note: `${word} extra` } })]);
    await server.searchable();
    const found = await search({ query: word, limit: 5 });
    expect(found.meta.totalHits).toBe(11_001);
    expect(found.meta.totalHitsRelation).toBe('eq');
    expect(found.data).toHaveLength(5);
    const phrase = await search({ query: `"${word} extra"` });
    expect(phrase.meta.totalHits).toBe(1);
  });

  it('takes the qualifiers target:, country:, origin: and the new facet fields', async () => {
    const tag = randomBytes(4).toString('hex');
    const at = '2025-06-01T10:00:00.000Z';
    await ingest([
      entry({
        timestamp: at,
        target: { id: `doc_${tag}`, type: 'document' },
        context: { ip: '192.0.2.7', location: { country: 'FR' } },
        actor: { type: 'user', id: `user_${tag}`, email: `Ada.${tag}@Example.com` },
      }),
      entry({
        timestamp: at,
        target: { id: `rep_${tag}`, type: 'report' },
        context: { ip: '192.0.2.8', location: { country: 'DE' } },
        actor: { type: 'user', id: `user_${tag}` },
      }),
    ]);
    await server.searchable();
    const range = { from: '2025-06-01T00:00:00Z', to: '2025-06-02T00:00:00Z' };
    expect((await search({ ...range, query: `target:doc_${tag}` })).meta.totalHits).toBe(1);
    expect((await search({ ...range, query: 'target:report' })).meta.totalHits).toBe(1);
    expect((await search({ ...range, query: 'country:fr' })).meta.totalHits).toBe(1);
    expect((await search({ ...range, query: 'origin:api -country:FR' })).meta.totalHits).toBe(1);
    expect((await search({ ...range, query: 'origin:service' })).meta.totalHits).toBe(0);
    expect((await search({ ...range, query: `actor:ada.${tag}@example.com` })).meta.totalHits).toBe(
      1,
    );
    const counted = await stats({
      ...range,
      groupBy: ['actor.email', 'target.id', 'context.ip', 'context.location.country'],
    });
    expect(counted.data.total).toBe(2);
    expect(counted.data.facets['actor.email']).toEqual([
      { value: `Ada.${tag}@Example.com`, count: 1 },
    ]);
    expect(counted.data.facets['target.id']).toEqual([
      { value: `doc_${tag}`, count: 1 },
      { value: `rep_${tag}`, count: 1 },
    ]);
    expect(counted.data.facets['context.ip'].map((f: { value: string }) => f.value)).toEqual([
      '192.0.2.7',
      '192.0.2.8',
    ]);
    expect(counted.data.facets['context.location.country']).toEqual([
      { value: 'DE', count: 1 },
      { value: 'FR', count: 1 },
    ]);
  });

  it('exports exactly the hits of a search, as JSON and as CSV', async () => {
    const word = `exported${randomBytes(4).toString('hex')}`;
    const at = '2025-07-01T10:00:00.000Z';
    const ids = await ingest([
      ...Array.from({ length: 120 }, (_, i) =>
        entry({ timestamp: at, metadata: { note: `${word} n${i}` } }),
      ),
      entry({ timestamp: at, metadata: { note: 'other words' } }),
      entry({ timestamp: at, result: 'failure', metadata: { note: word } }),
    ]);
    await server.searchable();
    const range = { from: '2025-07-01T00:00:00Z', to: '2025-07-02T00:00:00Z' };
    const query = `${word} -result:failure`;
    const hits = await search({ ...range, query, limit: 200 });
    expect(hits.meta.totalHits).toBe(120);
    for (const format of ['json', 'csv'] as const) {
      const res = await postText(
        server,
        '/v1/logs/export',
        JSON.stringify({ ...range, format, query }),
      );
      expect(res.status).toBe(201);
      const created = (await json(res)).data;
      expect(created.estimatedRecords).toBe(120);
      const done = await waitForExport(server.client, created.exportId);
      expect(done.status).toBe('completed');
      const text = await (await fetch(localDownload(server, done.downloadUrl as string))).text();
      const exported =
        format === 'json'
          ? JSON.parse(text).map((e: { id: string }) => e.id)
          : text
              .trim()
              .split('\n')
              .slice(1)
              .map((line) => line.split(',')[0]);
      expect(exported).toEqual(hits.data.map((h: { id: string }) => h.id));
      expect(exported).not.toContain(ids[121]);
    }
  });

  it('refuses an unparsable query with a 400 that names query and the character', async () => {
    const res = await postText(
      server,
      '/v1/logs/search',
      JSON.stringify({ query: 'login "unclosed' }),
    );
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.details[0].field).toBe('body.query');
    expect(body.error.details[0].message).toMatch(/character 7/);
  });

  it('no search, statistic or facet shows a deleted user’s email once DELETE has answered', async () => {
    const email = uniqueEmail('gone');
    const user = await createUser(server.client, { email });
    await ingest([
      entry({ actor: { type: 'user', id: user.id, email } }),
      entry({ actor: { type: 'user', id: user.id, email } }),
    ]);
    await server.searchable();
    expect((await search({ query: `"${email}"` })).meta.totalHits).toBe(2);
    const { response } = await server.client.DELETE('/v1/users/{id}', {
      params: { path: { id: user.id } },
    });
    expect(response.status).toBe(204);
    // At once: no wait, no feeder turn from the test.
    expect((await search({ query: `"${email}"` })).meta.totalHits).toBe(0);
    expect((await search({ query: `actor:${email}` })).meta.totalHits).toBe(0);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const counted = await stats({ from, to, groupBy: ['actor.email'] });
    expect(counted.data.facets['actor.email'].map((f: { value: string }) => f.value)).not.toContain(
      email,
    );
    expect((await search({ query: `actor:${user.id}` })).meta.totalHits).toBeGreaterThanOrEqual(2);
  });

  it('while the store cannot take a redaction over, search and statistics answer 503 rather than show it', async () => {
    const email = uniqueEmail('held');
    const user = await createUser(server.client, { email });
    await ingest([entry({ actor: { type: 'user', id: user.id, email } })]);
    await server.searchable();
    await server.searchIndex.stop();
    try {
      const { response } = await server.client.DELETE('/v1/users/{id}', {
        params: { path: { id: user.id } },
      });
      // The deletion is done and answered; the store has not taken its redaction over.
      expect(response.status).toBe(204);
      const held = await postText(
        server,
        '/v1/logs/search',
        JSON.stringify({ query: `"${email}"` }),
      );
      expect(held.status).toBe(503);
      expect(held.headers.get('retry-after')).toBeTruthy();
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const to = new Date(Date.now() + 3_600_000).toISOString();
      const stats = await postText(
        server,
        '/v1/logs/stats',
        JSON.stringify({ from, to, groupBy: ['actor.email'] }),
      );
      expect(stats.status).toBe(503);
    } finally {
      server.searchIndex.start();
    }
    await server.searchable();
    expect((await search({ query: `"${email}"` })).meta.totalHits).toBe(0);
  });

  it('removes from the store what retention removes from PostgreSQL', async () => {
    const word = `old${randomBytes(4).toString('hex')}`;
    await ingest([
      entry({ timestamp: '2024-01-10T00:00:00.000Z', metadata: { note: word } }),
      entry({ metadata: { note: word } }),
    ]);
    await server.searchable();
    expect((await search({ query: word })).meta.totalHits).toBe(2);
    const run = await retentionOn(server.db, 30).apply();
    expect(run.removedEntries).toBeGreaterThanOrEqual(1);
    await server.searchable();
    expect((await search({ query: word })).meta.totalHits).toBe(1);
  });

  it('rebuilds from PostgreSQL while it answers, then answers the same', async () => {
    const word = `rebuilt${randomBytes(4).toString('hex')}`;
    await ingest(Array.from({ length: 50 }, () => entry({ metadata: { note: word } })));
    await server.searchable();
    const before = await search({ query: word });
    const started = await postText(server, '/v1/logs/search-index/rebuild', '{}');
    expect(started.status).toBe(202);
    expect((await json(started)).data.status).toBe('rebuilding');
    // Search answers all along, from the table the rebuild will replace.
    expect((await search({ query: word })).meta.totalHits).toBe(50);
    await server.searchIndex.caughtUp();
    await waitFor('the rebuild to end', async () => {
      await server.searchIndex.turn();
      const res = await raw(server, '/v1/logs/search-index', {
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
      return (await json(res)).data.status === 'ok';
    });
    const after = await search({ query: word });
    expect(after.meta.totalHits).toBe(before.meta.totalHits);
    expect(after.data.map((h: { id: string }) => h.id)).toEqual(
      before.data.map((h: { id: string }) => h.id),
    );
  });

  it('compares the store with the record hour by hour, and finds an hour that differs', async () => {
    const at = '2025-08-01T10:30:00.000Z';
    await ingest(Array.from({ length: 7 }, () => entry({ timestamp: at })));
    await server.searchable();
    const range = { from: '2025-08-01T00:00:00Z', to: '2025-08-02T00:00:00Z' };
    const check = async () => {
      const res = await postText(server, '/v1/logs/search-index/check', JSON.stringify(range));
      expect(res.status).toBe(200);
      return (await json(res)).data;
    };
    expect(await check()).toMatchObject({
      hours: [{ start: '2025-08-01T10:00:00.000Z', record: 7, store: 7 }],
      mismatchedHours: 0,
    });
    const store = await storeOf(server);
    try {
      // One entry of the hour goes missing from the store behind the service's back.
      const table = tableName(store, LIVE_TABLE);
      await store.command(
        `DELETE FROM ${table} WHERE seq = (SELECT min(seq) FROM ${table} WHERE timestamp = toDateTime64('2025-08-01 10:30:00', 3, 'UTC'))`,
      );
    } finally {
      await store.close();
    }
    expect(await check()).toMatchObject({
      hours: [{ start: '2025-08-01T10:00:00.000Z', record: 7, store: 6 }],
      mismatchedHours: 1,
    });
    const tooLong = await postText(
      server,
      '/v1/logs/search-index/check',
      JSON.stringify({ from: '2025-01-01T00:00:00Z', to: '2025-03-01T00:00:00Z' }),
    );
    expect(tooLong.status).toBe(400);
  });

  it('fills the store again when its data is lost, and says so until it has', async () => {
    const word = `lost${randomBytes(4).toString('hex')}`;
    await ingest(Array.from({ length: 20 }, () => entry({ metadata: { note: word } })));
    await server.searchable();
    const store = await storeOf(server);
    try {
      // The feeder stops before the data goes: it writes no more.
      await server.searchIndex.stop();
      await dropTable(store, LIVE_TABLE);
    } finally {
      await store.close();
    }
    server = await server.restart();
    const ready = await raw(server, '/readyz');
    expect(ready.status).toBe(200);
    const during = await postText(server, '/v1/logs/search', JSON.stringify({ query: word }));
    if (during.status === 503)
      expect(await json(during)).toMatchObject({
        error: { message: expect.stringMatching(/rebuilt/) },
      });
    else expect((await json(during)).meta.totalHits).toBe(20);
    await server.searchIndex.caughtUp();
    await waitFor('the store to answer again', async () => {
      await server.searchIndex.turn();
      return (
        (await postText(server, '/v1/logs/search', JSON.stringify({ query: word }))).status === 200
      );
    });
    expect((await search({ query: word })).meta.totalHits).toBe(20);
  });
});
