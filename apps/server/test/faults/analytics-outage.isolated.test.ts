import { join } from 'node:path';
import { type ClickHouseHttp, startClickHouseHttp } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStore } from '../../src/features/audit-log/analytics/store-failures.js';
import { Unavailable } from '../../src/lib/errors.js';
import { withStoreErrors } from '../../src/storage/analytics/analytics-store.js';
import { openClickHouseServer } from '../../src/storage/analytics/clickhouse-server.js';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';
import { capturingLogger } from './traffic.js';

const RANGE = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-07T00:00:00.000Z' };

/**
 * The analytics store as a ClickHouse server (`CLICKHOUSE_URL`), here the HTTP interface of
 * test-infra on ClickHouse's own engine, in a process of its own: its errors as
 * `@clickhouse/client` gives them, and the server stopped under the service.
 */
describe('the analytics store on a ClickHouse server that stops', { timeout: 120_000 }, () => {
  let clickhouse: ClickHouseHttp | undefined;
  let server: TestServer | undefined;
  const log = capturingLogger();
  const running = () => server as TestServer;
  const post = async (path: string, body: unknown) => {
    const res = await raw(running(), path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${running().rootKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: await json(res),
    };
  };

  beforeAll(async () => {
    clickhouse = await startClickHouseHttp();
    server = await startTestServer(
      {
        analytics: {
          url: `${clickhouse.url}/secadmin`,
          cluster: undefined,
          embeddedPath: join('/nonexistent', 'unused'),
          embeddedDatabase: 'unused',
        },
      },
      { logger: log.logger },
    );
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await clickhouse?.stop();
  });

  it("tells the server's statement timeout from other failures, as a 503 either way", async () => {
    const store = withStoreErrors(
      openClickHouseServer({
        url: clickhouse?.url as string,
        cluster: undefined,
        requestTimeoutMs: 60_000,
      }),
    );
    try {
      // A count no machine finishes within a second.
      const read = await readStore(() =>
        store.query(
          'SELECT sum(number) FROM numbers(10000000000000) SETTINGS max_execution_time = 1',
        ),
      ).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(Unavailable);
      expect((read as Error).message).toMatch(/stopped this request at its time bound/);

      const wrong = await store.query('SELECT no_such_column').catch((error: unknown) => error);
      expect(wrong).not.toBeInstanceOf(Unavailable);
      const failed = await readStore(() => Promise.reject(wrong)).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Unavailable);
      expect((failed as Error).message).toMatch(/search store cannot answer/);
    } finally {
      await store.close();
    }
  });

  it('answers search and statistics with 503 while the store is down; the rest of the API is not affected', async () => {
    const ingest = await post('/v1/logs', {
      entries: [
        {
          event: 'user.login',
          actor: { type: 'user', id: 'outage' },
          result: 'success',
          timestamp: '2026-01-02T10:00:00.000Z',
          metadata: { note: 'nightjar' },
        },
      ],
    });
    expect(ingest.status).toBe(201);
    await running().searchable();
    const found = await post('/v1/logs/search', { query: 'nightjar' });
    expect(found.status).toBe(200);
    expect(found.body.meta.totalHits).toBe(1);

    await clickhouse?.stop();
    clickhouse = undefined;
    for (const [path, body] of [
      ['/v1/logs/search', { query: 'nightjar' }],
      ['/v1/logs/stats', { ...RANGE, query: 'nightjar', groupBy: ['event'] }],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, path).toBe(503);
      expect(answer.body.error.code).toBe('unavailable');
      expect(answer.body.error.message).toMatch(/search store is unreachable/);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // PostgreSQL stays the record: ingest, list and get, and readiness, as before.
    expect(
      (
        await post('/v1/logs', {
          entries: [{ event: 'user.logout', actor: { type: 'user' }, result: 'success' }],
        })
      ).status,
    ).toBe(201);
    const listed = await raw(running(), '/v1/logs?events=user.login', {
      headers: { authorization: `Bearer ${running().rootKey}` },
    });
    expect(listed.status).toBe(200);
    expect((await json(listed)).data).toHaveLength(1);
    const ready = await raw(running(), '/readyz');
    expect(ready.status).toBe(200);
    expect((await json(ready)).checks.database).toBe('ok');
  });
});
