import { randomBytes } from 'node:crypto';
import { type ClickHouseHttp, startClickHouseHttp } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';

/**
 * The ClickHouse server behind CLICKHOUSE_URL dies (kill -9): every request that needs it is a
 * 503 `unavailable` with Retry-After (§5: a dependency down is never a 500), and `/readyz`
 * still answers 200 (the store never makes the service unready by itself).
 */
describe('the ClickHouse server killed', () => {
  let clickhouse: ClickHouseHttp;
  let server: TestServer;
  const range = {
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() + 3_600_000).toISOString(),
  };
  beforeAll(async () => {
    const password = randomBytes(12).toString('hex');
    clickhouse = await startClickHouseHttp({ password });
    server = await startTestServer({
      analytics: {
        url: `${clickhouse.url}/t_${randomBytes(6).toString('hex')}`,
        cluster: undefined,
        embeddedPath: '',
        embeddedDatabase: '',
      },
    });
    const res = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [
          { event: 'probe.down', actor: { type: 'user', id: 'u_down' }, result: 'success' },
        ],
      }),
    );
    expect(res.status).toBe(201);
    await server.searchable();
    clickhouse.kill9();
  });
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it.each([
    ['search', '/v1/logs/search', { query: 'probe', ...range }],
    ['statistics', '/v1/logs/stats', { query: 'probe', ...range, groupBy: ['event'] }],
    ['an export of a search', '/v1/logs/export', { query: 'probe', ...range }],
    ['the check', '/v1/logs/search-index/check', range],
  ])('%s answers 503 with Retry-After, never 500', async (_, path, body) => {
    const res = await postText(server, path, JSON.stringify(body));
    const answer = await json(res);
    expect(answer.error?.code).toBe('unavailable');
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('/readyz answers 200', async () => {
    const res = await raw(server, '/readyz');
    expect(res.status).toBe(200);
  });
});

/**
 * PostgreSQL is the record: a search store that is down when the service starts keeps search and
 * statistics from answering (503), not ingest, users or policies from working.
 */
describe('the ClickHouse server down when the service starts', () => {
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('the service starts, is ready, takes entries, and answers search 503', async () => {
    // Nothing listens on port 1 of the loopback: the store is unreachable.
    server = await startTestServer({
      analytics: {
        url: `http://default:${randomBytes(8).toString('hex')}@127.0.0.1:1/t_${randomBytes(6).toString('hex')}`,
        cluster: undefined,
        embeddedPath: '',
        embeddedDatabase: '',
      },
    });
    expect((await raw(server, '/readyz')).status).toBe(200);
    const ingest = await postText(
      server,
      '/v1/logs',
      JSON.stringify({
        entries: [{ event: 'probe.start', actor: { type: 'user', id: 'u' }, result: 'success' }],
      }),
    );
    expect(ingest.status).toBe(201);
    const search = await postText(server, '/v1/logs/search', JSON.stringify({ query: 'probe' }));
    expect(search.status).toBe(503);
  });
});
