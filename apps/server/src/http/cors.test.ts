import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../../test/helpers/server.js';

const ALLOWED = 'https://console.example.com';
const OTHER = 'https://evil.example.net';

const accessControlHeaders = (res: Response) =>
  [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      corsOrigins: [ALLOWED, 'http://localhost:5173'],
    });
  });
  afterAll(() => server?.stop());

  it('answers a preflight from a listed origin 204, without a key', async () => {
    const res = await raw(server, '/v1/users', {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id, traceparent, tracestate',
    );
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
  });

  it('echoes a listed origin on requests and exposes the headers a client reads', async () => {
    const res = await raw(server, '/v1/users', {
      headers: { origin: ALLOWED, authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(res.headers.get('access-control-expose-headers')?.split(', ')).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'ETag',
      'X-Request-Id',
      'Retry-After',
    ]);
    const unauthenticated = await raw(server, '/v1/users', { headers: { origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('gives any other origin no Access-Control-* header at all, preflight or not', async () => {
    const preflight = await raw(server, '/v1/users', {
      method: 'OPTIONS',
      headers: { origin: OTHER, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).not.toBe(204);
    expect(accessControlHeaders(preflight)).toEqual([]);
    const request = await raw(server, '/v1/users', {
      headers: { origin: OTHER, authorization: `Bearer ${server.rootKey}` },
    });
    expect(request.status).toBe(200);
    expect(accessControlHeaders(request)).toEqual([]);
  });

  it('sends no CORS header when no origin is configured', async () => {
    const plain = await startTestServer();
    try {
      const res = await raw(plain, '/v1/users', {
        method: 'OPTIONS',
        headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
      });
      expect(accessControlHeaders(res)).toEqual([]);
    } finally {
      await plain.stop();
    }
  });
});
