import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKey,
  createPolicy,
  createUser,
  failure,
  outsideWindowBoundary,
} from '../helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitUntilPast } from '../helpers/wait.js';

describe('API keys and authorization', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('answers 401 with WWW-Authenticate for a missing, malformed, unknown or revoked key', async () => {
    const key = await createKey(server.client, 'service:revoked');
    await server.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } });
    for (const authorization of [
      undefined,
      'Basic abc',
      'Bearer',
      `Bearer ${key.secret}`,
      'Bearer sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      const res = await raw(server, '/v1/users', {
        headers: authorization ? { authorization } : {},
      });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      const body = await json(res);
      expect(body.error.code).toBe('unauthorized');
      expect(body.meta.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it("cuts the User-Agent and client IP of its own entries to the log schema's limits", async () => {
    const userAgent = `cut-probe/${'u'.repeat(10_000)}`;
    const forwardedFor = `${'f'.repeat(2_000)}, 203.0.113.9`;
    server = await server.restart({ trustProxy: true });
    try {
      const headers = { 'user-agent': userAgent, 'x-forwarded-for': forwardedFor };
      const refused = await raw(server, '/v1/users', {
        headers: { ...headers, authorization: 'Bearer sk_cut_probe' },
      });
      expect(refused.status).toBe(401);
      const created = await raw(server, '/v1/api-keys', {
        method: 'POST',
        headers: {
          ...headers,
          authorization: `Bearer ${server.rootKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'cut probe', principal: 'service:cut-probe' }),
      });
      expect(created.status).toBe(201);
    } finally {
      server = await server.restart({ trustProxy: false });
    }
    const stored = await server.db.query<{ event: string; userAgent: number; ip: number }>(
      `SELECT event, length(user_agent)::int AS "userAgent", length(ip)::int AS ip
       FROM log_entries WHERE user_agent LIKE 'cut-probe/%' ORDER BY event`,
    );
    expect(stored).toEqual([
      { event: 'apikey.created', userAgent: 1024, ip: 64 },
      { event: 'auth.failed', userAgent: 1024, ip: 64 },
    ]);
    // What is stored is what the schema allows: listing them passes response validation.
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['auth.failed', 'apikey.created'], limit: 1000 } },
    });
    expect(data?.data.some((e) => e.context?.userAgent?.startsWith('cut-probe/'))).toBe(true);
  });

  it('ignores a key in the query string', async () => {
    const res = await raw(
      server,
      `/v1/users?api_key=${server.rootKey}&access_token=${server.rootKey}`,
    );
    expect(res.status).toBe(401);
  });

  it('rejects an expired key on its next request', async () => {
    const key = await createKey(server.client, 'service:short', {
      expiresAt: new Date(Date.now() + 5000).toISOString(),
    });
    const policy = await createPolicy(server.client, {
      principals: ['service:short'],
      actions: ['users:list'],
      resources: ['users'],
    });
    const before = await server.clientWith(key.secret).GET('/v1/users');
    // Answered before the expiry, it was served (a loaded machine may take longer to get here).
    if (Date.now() < Date.parse(key.expiresAt as string)) expect(before.data).toBeDefined();
    await waitUntilPast('the key to expire', key.expiresAt as string);
    expect(await failure(server.clientWith(key.secret).GET('/v1/users'))).toMatchObject({
      status: 401,
    });
    await server.client.DELETE('/v1/policies/{id}', { params: { path: { id: policy.id } } });
  });

  it('lets a user key read its own user through a ${self} policy and nothing else', async () => {
    const ada = await createUser(server.client);
    const bob = await createUser(server.client);
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['users:read'],
      resources: ['users/${self}'],
    });
    const key = await createKey(server.client, `user:${ada.id}`);
    const asAda = server.clientWith(key.secret);
    expect(
      (await asAda.GET('/v1/users/{id}', { params: { path: { id: ada.id } } })).data?.data.id,
    ).toBe(ada.id);
    expect(
      await failure(asAda.GET('/v1/users/{id}', { params: { path: { id: bob.id } } })),
    ).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await failure(asAda.GET('/v1/users'))).toMatchObject({ status: 403 });
    expect(
      await failure(
        asAda.PATCH('/v1/users/{id}', { params: { path: { id: ada.id } }, body: { name: 'x' } }),
      ),
    ).toMatchObject({ status: 403 });
    expect(
      await failure(
        asAda.POST('/v1/policies', {
          body: {
            name: 'escalate',
            effect: 'allow',
            principals: ['*'],
            actions: ['*'],
            resources: ['*'],
          },
        }),
      ),
    ).toMatchObject({
      status: 403,
    });
  });

  it('refuses 403 before reading a body it would not accept anyway', async () => {
    const key = await createKey(server.client, 'service:nobody');
    const res = await raw(server, '/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(403);
  });

  it('applies a deleted policy at once: access is gone on the next request', async () => {
    const policy = await createPolicy(server.client, {
      principals: ['service:temp'],
      actions: ['policies:list'],
      resources: ['policies'],
    });
    const key = await createKey(server.client, 'service:temp');
    expect((await server.clientWith(key.secret).GET('/v1/policies')).data).toBeDefined();
    await server.client.DELETE('/v1/policies/{id}', { params: { path: { id: policy.id } } });
    expect(await failure(server.clientWith(key.secret).GET('/v1/policies'))).toMatchObject({
      status: 403,
    });
  });
});

describe('rate limits and errors', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('counts exactly under concurrency: of N requests over limit L, exactly L succeed', async () => {
    const key = await createKey(server.client, 'service:burst', {
      plan: 'enterprise',
      rateLimitPerMinute: 20,
    });
    await createPolicy(server.client, {
      principals: ['service:burst'],
      actions: ['policies:list'],
      resources: ['policies'],
    });
    await outsideWindowBoundary();
    const responses = await Promise.all(
      Array.from({ length: 35 }, () =>
        raw(server, '/v1/policies?limit=1', { headers: { authorization: `Bearer ${key.secret}` } }),
      ),
    );
    expect(new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size).toBe(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(20);
    const limited = responses.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await json(limited as Response)).error.code).toBe('rate_limited');
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')))
      .sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
  });

  it('sends rate-limit headers with Unix-epoch reset on every /v1 response', async () => {
    const res = await raw(server, '/v1/users', {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(server.config.rootRateLimit));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    const health = await raw(server, '/healthz');
    expect(health.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('maps bad requests to the envelope: 415, 400 malformed JSON, 413, 404 route', async () => {
    const auth = { authorization: `Bearer ${server.rootKey}` };
    const plain = await raw(server, '/v1/users', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(plain.status).toBe(415);
    expect((await json(plain)).error.code).toBe('unsupported_media_type');
    const malformed = await raw(server, '/v1/users', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).error.code).toBe('invalid_request');
    const big = await raw(server, '/v1/users', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@b.co', metadata: { x: 'y'.repeat(1_100_000) } }),
    });
    expect(big.status).toBe(413);
    expect((await json(big)).error.code).toBe('payload_too_large');
    const malformedPath = await raw(server, '/v1/users/%E0%A4%A', { headers: auth });
    expect(malformedPath.status).toBe(404);
    for (const path of ['/v1/users/%00', '/v1/users?email=%00', '/v1/logs?actor=a%00b']) {
      const nul = await raw(server, path, { headers: auth });
      expect(nul.status, path).toBe(400);
    }
    const missing = await raw(server, '/v1/nothing-here', { headers: auth });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('not_found');
  });

  it('takes a body in UTF-8 only, by its name or the alias utf8; any other charset is a 415', async () => {
    const post = (charset: string, email: string) =>
      raw(server, '/v1/users', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.rootKey}`,
          'content-type': `application/json; charset=${charset}`,
        },
        body: JSON.stringify({ email, name: 'Zoë' }),
      });
    for (const [i, charset] of ['utf-8', 'UTF-8', 'utf8', '"utf-8"'].entries()) {
      const res = await post(charset, `charset${i}@example.com`);
      expect(res.status, charset).toBe(201);
      expect((await json(res)).data.name, charset).toBe('Zoë');
    }
    for (const charset of ['utf-7', 'utf-16', 'UTF-16LE', 'latin1', 'us-ascii', 'utf-8x']) {
      const res = await post(charset, `refused-${charset}@example.com`.toLowerCase());
      expect(res.status, charset).toBe(415);
      const { error } = await json(res);
      expect(error.code).toBe('unsupported_media_type');
      expect(error.message).toContain('charset=utf-8');
    }
  });

  it('reuses a safe incoming X-Request-Id and replaces an unsafe one', async () => {
    const auth = { authorization: `Bearer ${server.rootKey}` };
    const kept = await raw(server, '/v1/users', {
      headers: { ...auth, 'x-request-id': 'trace-123.abc' },
    });
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc');
    expect((await json(kept)).meta.requestId).toBe('trace-123.abc');
    const replaced = await raw(server, '/v1/users', {
      headers: { ...auth, 'x-request-id': 'bad id <script>' },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers a request without a key before its body arrives, and closes the connection', async () => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    const closed = new Promise<void>((resolve) => {
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    let trickle: NodeJS.Timeout | undefined;
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      // Headers, then a body byte by byte: idle timeouts never fire, the body never ends.
      socket.write(
        'POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"entries":[',
      );
      trickle = setInterval(() => socket.writable && socket.write(' '), 200);
      const timeout = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 10_000));
      expect(await Promise.race([closed.then(() => 'closed' as const), timeout])).toBe('closed');
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('sends security headers and no X-Powered-By', async () => {
    const res = await raw(server, '/v1/users', {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBeTruthy();
  });

  it('limits requests without a valid key per IP and records auth.failed only within that budget', async () => {
    const bad = { authorization: 'Bearer sk_wrongwrongwrongwrongwrongwrongwrongwrong' };
    await outsideWindowBoundary();
    const responses = [];
    for (let i = 0; i < 105; i++)
      responses.push((await raw(server, '/v1/users', { headers: bad })).status);
    expect(responses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(responses.filter((s) => s === 401).length).toBeLessThanOrEqual(100);
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['auth.failed'], limit: 1000 } },
    });
    expect(data?.data.length).toBeLessThanOrEqual(responses.filter((s) => s === 401).length + 10);
    expect(JSON.stringify(data)).not.toContain('sk_wrong');
  });
});
