import { randomBytes } from 'node:crypto';
import type { components } from '@secadmin/api-types';
import { type ClickHouseHttp, startClickHouseHttp } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../../../test/helpers/fixtures.js';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import type { Config } from '../../../config.js';
import { Unavailable } from '../../../lib/errors.js';
import {
  type AnalyticsStore,
  withStoreErrors,
} from '../../../storage/analytics/analytics-store.js';
import { SearchStore } from './search-store.js';
import { StatsStore } from './stats-store.js';
import { dropTable, LIVE_TABLE, tableName } from './table.js';

type Entry = components['schemas']['LogEntryInput'];

/** Wrong answers and lost entries found by an outside review of the analytics store (issue 43). */
describe.each(['embedded', 'server'] as const)('the %s store, attacked', (path) => {
  let clickhouse: ClickHouseHttp | undefined;
  let server: TestServer;
  const range = () => ({
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const ingest = async (entries: Entry[]) => {
    const res = await postText(server, '/v1/logs', JSON.stringify({ entries }));
    expect(res.status).toBe(201);
  };
  const search = async (query: string) => {
    const res = await postText(server, '/v1/logs/search', JSON.stringify({ query, ...range() }));
    expect(res.status).toBe(200);
    return json(res);
  };

  beforeAll(async () => {
    if (path === 'server') clickhouse = await startClickHouseHttp();
    const analytics: Partial<Config> = clickhouse
      ? {
          analytics: {
            url: `${clickhouse.url}/t_${randomBytes(6).toString('hex')}`,
            cluster: undefined,
            embeddedPath: '',
            embeddedDatabase: '',
          },
        }
      : {};
    server = await startTestServer(analytics);
  });
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it('actor: finds an email with non-ASCII capitals, written as stored or in any case', async () => {
    const tag = randomBytes(4).toString('hex');
    const email = `ÉLISE.${tag}@Example.com`;
    await ingest([
      { event: 'probe.email', actor: { type: 'user', id: `u_${tag}`, email }, result: 'success' },
    ]);
    await server.searchable();
    for (const written of [email, email.toLowerCase(), email.toUpperCase()]) {
      const found = await search(`actor:${written}`);
      expect(found.meta.totalHits, written).toBe(1);
      expect(found.data[0].highlights['actor.email'], written).toBe(`<em>${email}</em>`);
    }
  });

  it('a redaction applied again, after the store answered its insert with an error, keeps the entries', async () => {
    const tag = randomBytes(4).toString('hex');
    const user = await createUser(server.client, { email: `twice.${tag}@example.com` });
    const event = `probe.twice_${tag}`;
    await ingest(
      Array.from({ length: 5 }, () => ({
        event,
        actor: { type: 'user', id: user.id, email: user.email },
        result: 'success' as const,
      })),
    );
    await server.searchable();
    expect((await search(`event:${event}`)).meta.totalHits).toBe(5);
    // The store writes the redacted rows, but its answer is lost (a connection reset, a client
    // timeout, a crash before the change is marked done): the feeder applies the change again.
    const store = (server.searchIndex as unknown as { store: AnalyticsStore }).store;
    const insert = store.insert;
    let answeredWithError = false;
    store.insert = async (table, rows, token) => {
      await insert(table, rows, token);
      if (token?.startsWith('change-') && !answeredWithError) {
        answeredWithError = true;
        throw new Error('socket hang up');
      }
    };
    try {
      const { response } = await server.client.DELETE('/v1/users/{id}', {
        params: { path: { id: user.id } },
      });
      expect(response.status).toBe(204);
      await server.searchable();
    } finally {
      store.insert = insert;
    }
    expect(answeredWithError).toBe(true);
    expect((await search(`event:${event}`)).meta.totalHits).toBe(5);
    const check = await postText(server, '/v1/logs/search-index/check', JSON.stringify(range()));
    expect((await json(check)).data.mismatchedHours).toBe(0);
  });
});

describe('the store as search reads it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a rebuild asked for answers 202 with the rebuild and its startedAt, the same for every request until it is done', async () => {
    const state = async (res: Response) => (await json(res)).data;
    const index = () =>
      raw(server, '/v1/logs/search-index', {
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
    // The feeder is held so the request is seen before it picks it up.
    await server.searchIndex.stop();
    try {
      const first = await state(await postText(server, '/v1/logs/search-index/rebuild', '{}'));
      expect(first.status).toBe('rebuilding');
      expect(first.rebuild?.startedAt).toMatch(/^\d{4}-/);
      const again = await state(await postText(server, '/v1/logs/search-index/rebuild', '{}'));
      expect(again.rebuild?.startedAt).toBe(first.rebuild.startedAt);
      await server.searchIndex.turn();
      expect((await state(await index())).rebuild?.startedAt).toBe(first.rebuild.startedAt);
    } finally {
      server.searchIndex.start();
    }
    await waitFor(
      'the rebuild to finish',
      async () => (await state(await index())).rebuild === null,
    );
  });

  it('finds the words of a metadata value around a newline or a tab, and no word made of an escape', async () => {
    const tag = randomBytes(4).toString('hex');
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [
          {
            event: 'probe.lines',
            actor: { type: 'user', id: 'u_lines' },
            result: 'success',
            metadata: { message: `first${tag}\nsecond${tag}\tthird${tag}` },
          },
        ],
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    const hits = async (query: string) =>
      (await json(await postText(server, '/v1/logs/search', JSON.stringify({ query })))).meta
        .totalHits;
    expect(await hits(`second${tag}`)).toBe(1);
    expect(await hits(`third${tag}`)).toBe(1);
    expect(await hits(`nsecond${tag}`)).toBe(0);
  });

  it('a phrase is words adjacent within one field, never the end of one field and the start of the next', async () => {
    const tag = randomBytes(4).toString('hex');
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [
          {
            event: 'probe.fields',
            actor: { type: 'user', id: `alpha${tag}`, email: `beta${tag}@example.com` },
            result: 'success',
          },
        ],
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    const found = await json(
      await postText(
        server,
        '/v1/logs/search',
        JSON.stringify({ query: `"alpha${tag} beta${tag}"` }),
      ),
    );
    // A hit here would have nothing to highlight: no field holds the phrase.
    expect(found.meta.totalHits).toBe(0);
  });

  it('a phrase of words made of letters is found exactly from its keys, a longer one or one with digits from its text', async () => {
    const t = [...randomBytes(6)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
    const [amber, birch, cedar, dune] = ['amber', 'birch', 'cedar', 'dune'].map((w) => `${t}${w}`);
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [
          {
            event: 'probe.phrases',
            actor: { type: 'user', id: 'u_phrases' },
            context: {
              userAgent: `${amber} ${birch} ${cedar}`,
              location: { city: `${birch} ${cedar} ${dune}` },
            },
            metadata: { note: `${amber} 42 ${birch}` },
            result: 'success',
          },
        ],
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    const total = async (query: string) =>
      (await json(await postText(server, '/v1/logs/search', JSON.stringify({ query })))).meta
        .totalHits;
    expect(await total(`"${amber} ${birch}"`)).toBe(1);
    expect(await total(`"${amber} ${birch} ${cedar}"`)).toBe(1);
    expect(await total(`"${birch} ${cedar} ${dune}"`)).toBe(1);
    expect(await total(`"${amber} 42 ${birch}"`)).toBe(1);
    expect(await total(`"42 ${birch}"`)).toBe(1);
    // Both runs of three are there, in two fields: the four words are adjacent in none.
    expect(await total(`"${amber} ${birch} ${cedar} ${dune}"`)).toBe(0);
    expect(await total(`"${cedar} ${birch}"`)).toBe(0);
    expect(await total(`"${amber} ${cedar}"`)).toBe(0);
    expect(await total(`"${amber} 43 ${birch}"`)).toBe(0);
    expect(await total(`-"${amber} ${birch}" ${dune}`)).toBe(0);
  });

  it('every hit a word finds has that word highlighted, a dotted capital İ included', async () => {
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [
          {
            event: 'probe.city',
            actor: { type: 'user', id: 'u_city' },
            context: { location: { city: 'İstanbul' } },
            result: 'success',
          },
        ],
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    for (const query of ['İstanbul', 'istanbul']) {
      const found = await json(
        await postText(server, '/v1/logs/search', JSON.stringify({ query })),
      );
      for (const hit of found.data) expect(hit.highlights, query).not.toEqual({});
    }
  });
});

describe('a rebuild interrupted right after its exchange', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the rebuilt table, not the one it replaced', async () => {
    const event = `probe.exchange_${randomBytes(4).toString('hex')}`;
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: Array.from({ length: 20 }, () => ({
          event,
          actor: { type: 'user', id: 'u_exchange' },
          result: 'success',
        })),
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    const total = async () =>
      (
        await json(
          await postText(server, '/v1/logs/search', JSON.stringify({ query: `event:${event}` })),
        )
      ).meta.totalHits;
    const store = (server.searchIndex as unknown as { store: AnalyticsStore }).store;
    // The store lost rows (what a rebuild is for).
    await store.command(
      `DELETE FROM ${tableName(store, LIVE_TABLE)} WHERE event = {event:String} AND seq % 4 = 0`,
      { event },
    );
    expect(await total()).toBeLessThan(20);
    // The connection drops right after the exchange (or the process is killed there): the
    // rebuild table's DROP and everything after it fail once.
    const command = store.command;
    let exchanged = false;
    let interrupted = false;
    store.command = async (sql, params) => {
      if (exchanged && !interrupted) {
        interrupted = true;
        throw new Error('socket hang up');
      }
      await command(sql, params);
      if (sql.includes('EXCHANGE TABLES')) exchanged = true;
    };
    try {
      expect((await postText(server, '/v1/logs/search-index/rebuild', '{}')).status).toBe(202);
      await waitFor('the rebuild to finish', async () => {
        const { data } = await json(
          await raw(server, '/v1/logs/search-index', {
            headers: { authorization: `Bearer ${server.rootKey}` },
          }),
        );
        return data.status !== 'rebuilding' && data.rebuild === null;
      });
    } finally {
      store.command = command;
    }
    expect(interrupted).toBe(true);
    expect(await total()).toBe(20);
  });
});

describe.each(['embedded', 'server'] as const)('the %s store losing its table', (path) => {
  let clickhouse: ClickHouseHttp | undefined;
  let server: TestServer;
  beforeAll(async () => {
    if (path === 'server') clickhouse = await startClickHouseHttp();
    server = await startTestServer(
      clickhouse
        ? {
            analytics: {
              url: `${clickhouse.url}/t_${randomBytes(6).toString('hex')}`,
              cluster: undefined,
              embeddedPath: '',
              embeddedDatabase: '',
            },
          }
        : {},
    );
  });
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it('is filled again by a rebuild, and search answers again, without a restart', async () => {
    const event = `probe.lost_${randomBytes(4).toString('hex')}`;
    const entries: Entry[] = Array.from({ length: 3 }, () => ({
      event,
      actor: { type: 'user', id: 'u_lost' },
      result: 'success',
    }));
    const ingest = async () =>
      expect((await postText(server, '/v1/logs', JSON.stringify({ entries }))).status).toBe(201);
    await ingest();
    await server.searchable();
    // A server restarted without its volume, the store's directory deleted, or an operator
    // dropped the table.
    await dropTable((server.searchIndex as unknown as { store: AnalyticsStore }).store, LIVE_TABLE);
    await ingest();
    const rebuild = await postText(server, '/v1/logs/search-index/rebuild', '{}');
    expect(rebuild.status).toBe(202);
    await waitFor('the rebuild to finish', async () => {
      const res = await raw(server, '/v1/logs/search-index', {
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
      const { data } = await json(res);
      return data.status !== 'rebuilding' && data.rebuild === null;
    });
    const found = await postText(
      server,
      '/v1/logs/search',
      JSON.stringify({ query: `event:${event}` }),
    );
    expect(found.status).toBe(200);
    expect((await json(found)).meta.totalHits).toBe(6);
  });
});

describe('a statement the store stops at its time bound', () => {
  const timedOut: AnalyticsStore = withStoreErrors({
    kind: 'server',
    database: 'secadmin',
    cluster: undefined,
    query: () =>
      Promise.reject(
        new Error(
          'Code: 159. DB::Exception: Timeout exceeded: elapsed 1.000 sec, maximum: 1 sec. (TIMEOUT_EXCEEDED)',
        ),
      ),
    command: () => Promise.resolve(),
    insert: () => Promise.resolve(),
    ping: () => Promise.resolve(true),
    close: () => Promise.resolve(),
  });

  it('is a 503 for search and statistics (docs/analytics-store.md), not a failure', async () => {
    const scope = { from: new Date(0), to: new Date() };
    await expect(new SearchStore(timedOut, 1_000).count([], scope)).rejects.toBeInstanceOf(
      Unavailable,
    );
    await expect(
      new SearchStore(timedOut, 1_000).hits([], scope, undefined, 10),
    ).rejects.toBeInstanceOf(Unavailable);
    await expect(
      new StatsStore(timedOut, 1_000).count(
        { query: undefined, ...scope },
        { firstStart: new Date(0), widthMs: 86_400_000 },
        [],
      ),
    ).rejects.toBeInstanceOf(Unavailable);
  });
});

describe('a CLICKHOUSE_URL whose database name needs quoting', () => {
  let clickhouse: ClickHouseHttp;
  let server: TestServer;
  beforeAll(async () => {
    clickhouse = await startClickHouseHttp();
    server = await startTestServer({
      analytics: {
        url: `${clickhouse.url}/audit-${randomBytes(6).toString('hex')}`,
        cluster: undefined,
        embeddedPath: '',
        embeddedDatabase: '',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it('is fed, and search finds what was ingested', async () => {
    const event = `probe.dashed_${randomBytes(4).toString('hex')}`;
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [{ event, actor: { type: 'user', id: 'u_dashed' }, result: 'success' }],
      }),
    );
    expect(res.status).toBe(201);
    await waitFor('the entry to be found', async () => {
      const found = await postText(
        server,
        '/v1/logs/search',
        JSON.stringify({ query: `event:${event}` }),
      );
      return found.status === 200 && (await json(found)).meta.totalHits === 1;
    });
  });
});
