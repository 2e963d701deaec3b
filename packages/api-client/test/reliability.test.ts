import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSecadminClient,
  type RetryInfo,
  retryAfterMs,
  SecadminApiError,
  SecadminConnectionError,
} from '../src/index.js';
import { closedPort, sendJson, startServer, type TestServer } from './http-server.js';

const user = {
  id: 'user_01jf3k8m6q2w9x4v7t5r1n0b3c',
  email: 'ada@example.com',
  emailVerified: false,
  roles: [],
  metadata: {},
  createdAt: '2026-11-25T21:00:00Z',
  updatedAt: '2026-11-25T21:00:00Z',
};
const created = { data: user, meta: { requestId: 'r' } };
const limited = { error: { code: 'rate_limited', message: 'slow down' }, meta: { requestId: 'r' } };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('retries', () => {
  it('stops waiting for Retry-After as soon as the signal aborts', async () => {
    server = await startServer((_, res) => sendJson(res, 429, limited, { 'retry-after': '3600' }));
    const caller = new AbortController();
    const givenUp = new Error('the caller gave up');
    const retries: RetryInfo[] = [];
    const client = createSecadminClient({
      baseUrl: server.url,
      retry: {
        maxWaitMs: 2 * 3_600_000,
        onRetry: (retry) => {
          retries.push(retry);
          setImmediate(() => caller.abort(givenUp));
        },
      },
    });
    const error = await client.users.get(user.id, { signal: caller.signal }).catch((e) => e);
    expect(error).toBe(givenUp);
    expect(retries).toMatchObject([{ attempt: 1, delayMs: 3_600_000, status: 429 }]);
    expect(server.received).toHaveLength(1);
  });

  it('tells onRetry about each retry, then answers', async () => {
    server = await startServer((_, res, i) =>
      i < 2
        ? sendJson(res, i === 0 ? 429 : 503, limited, { 'retry-after': '0' })
        : sendJson(res, 200, created),
    );
    const retries: RetryInfo[] = [];
    const client = createSecadminClient({
      baseUrl: server.url,
      retry: { onRetry: (retry) => retries.push(retry) },
    });
    expect((await client.users.get(user.id)).email).toBe(user.email);
    const url = `${server.url}/v1/users/${user.id}`;
    expect(retries).toEqual([
      { attempt: 1, delayMs: 0, method: 'GET', url, status: 429 },
      { attempt: 2, delayMs: 0, method: 'GET', url, status: 503 },
    ]);
  });

  it('gives up after maxRetries and throws the last answer', async () => {
    server = await startServer((_, res) => sendJson(res, 429, limited, { 'retry-after': '0' }));
    const client = createSecadminClient({ baseUrl: server.url, retry: { maxRetries: 2 } });
    await expect(client.users.list()).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
    expect(server.received).toHaveLength(3);
  });

  it('does not start a wait past maxWaitMs', async () => {
    server = await startServer((_, res) => sendJson(res, 429, limited, { 'retry-after': '3600' }));
    const retries: RetryInfo[] = [];
    const client = createSecadminClient({
      baseUrl: server.url,
      retry: { maxWaitMs: 5000, onRetry: (retry) => retries.push(retry) },
    });
    await expect(client.users.list()).rejects.toBeInstanceOf(SecadminApiError);
    expect(retries).toEqual([]);
    expect(server.received).toHaveLength(1);
  });

  it('resends a POST whose answer was lost when it has an Idempotency-Key, with the same key', async () => {
    server = await startServer((_, res, i) =>
      i === 0 ? res.socket?.destroy() : sendJson(res, 201, created),
    );
    const retries: RetryInfo[] = [];
    const client = createSecadminClient({
      baseUrl: server.url,
      retry: { onRetry: (retry) => retries.push(retry) },
    });
    expect((await client.users.create({ email: user.email })).id).toBe(user.id);
    expect(retries).toMatchObject([{ attempt: 1, method: 'POST' }]);
    expect(retries[0]?.error).toBeInstanceOf(SecadminConnectionError);
    const [first, second] = server.received;
    expect(first?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect(second?.body).toBe(JSON.stringify({ email: user.email }));
  });

  it('does not resend a POST without an Idempotency-Key', async () => {
    server = await startServer((_, res, i) =>
      i === 0 ? res.socket?.destroy() : sendJson(res, 201, created),
    );
    const client = createSecadminClient({ baseUrl: server.url, idempotencyKeys: false });
    const error = await client.users.create({ email: user.email }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecadminConnectionError);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('sends the caller’s own Idempotency-Key', async () => {
    server = await startServer((_, res) => sendJson(res, 201, created));
    const client = createSecadminClient({ baseUrl: server.url });
    await client.users.create({ email: user.email }, { idempotencyKey: 'signup-42' });
    expect(server.received[0]?.headers['idempotency-key']).toBe('signup-42');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T21:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('Wed, 25 Nov 2026 21:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});

describe('connection errors', () => {
  it('turns a refused connection into a SecadminConnectionError with its cause', async () => {
    const client = createSecadminClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      retry: { maxRetries: 0 },
    });
    const error = await client.system.getHealth().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecadminConnectionError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('times out an attempt that gets no answer', async () => {
    server = await startServer(() => {
      /* never answers */
    });
    const client = createSecadminClient({
      baseUrl: server.url,
      timeout: 200,
      retry: { maxRetries: 0 },
    });
    const error = await client.users.get(user.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecadminConnectionError);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
  });

  it('retries an attempt that timed out, for a GET', async () => {
    server = await startServer((_, res, i) => {
      if (i > 0) sendJson(res, 200, created);
    });
    const retries: RetryInfo[] = [];
    const client = createSecadminClient({
      baseUrl: server.url,
      timeout: 500,
      retry: { onRetry: (retry) => retries.push(retry) },
    });
    expect((await client.users.get(user.id)).id).toBe(user.id);
    // On a loaded machine a later attempt may time out too: each retry is for a timeout.
    expect(retries.length).toBeGreaterThanOrEqual(1);
    for (const retry of retries) expect(retry.error?.cause).toMatchObject({ name: 'TimeoutError' });
  });
});

it('sends User-Agent: secadmin-api-client/<version of package.json>', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  server = await startServer((_, res) => sendJson(res, 200, { status: 'ok' }));
  await createSecadminClient({ baseUrl: server.url }).system.getHealth();
  expect(server.received[0]?.headers['user-agent']).toBe(`secadmin-api-client/${version}`);
});

it('walks a search page by page, sending each nextCursor back in the body', async () => {
  const hit = (id: string) => ({
    id,
    timestamp: '2026-11-25T21:00:00.123Z',
    event: 'user.login',
    actor: { type: 'anonymous' },
    result: 'success',
  });
  const pages: Record<string, unknown> = {
    '': { data: [hit('a'), hit('b')], pagination: { hasMore: true, nextCursor: 'c1' } },
    c1: { data: [hit('c')], pagination: { hasMore: false } },
  };
  server = await startServer((req, res) => {
    const { cursor = '' } = JSON.parse(req.body) as { cursor?: string };
    const meta = {
      requestId: 'r',
      totalHits: 3,
      totalHitsRelation: 'eq',
      searchTimeMs: 1,
      indexedThroughSeq: 3,
      indexedAt: '2026-11-25T21:00:01.000Z',
    };
    sendJson(res, 200, { ...(pages[cursor] as object), meta });
  });
  const client = createSecadminClient({ baseUrl: server.url });
  const ids: string[] = [];
  for await (const found of client.paginate('/v1/logs/search', { query: 'login', limit: 2 }))
    ids.push(found.id);
  expect(ids).toEqual(['a', 'b', 'c']);
  expect(server.received.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
    ['POST', '/v1/logs/search', { query: 'login', limit: 2 }],
    ['POST', '/v1/logs/search', { query: 'login', limit: 2, cursor: 'c1' }],
  ]);
});
