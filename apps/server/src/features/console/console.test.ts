import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('the console routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('serve the page at /console, /console/ and each view, no-cache, with the strict CSP', async () => {
    for (const path of ['/console', '/console/', '/console/logs', '/console/exports']) {
      const res = await raw(server, path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp.split('; ')).toEqual(
        expect.arrayContaining([
          "default-src 'none'",
          "script-src 'self'",
          "connect-src 'self'",
          "frame-ancestors 'none'",
        ]),
      );
      expect(await res.text()).toContain('/console/assets/');
    }
  });

  it('serve the hashed files for a year, in the encoding asked for; unknown or odd names are refused', async () => {
    const page = await (await raw(server, '/console')).text();
    const script = page.match(/src="(\/console\/assets\/[^"]+\.js)"/)?.[1] as string;
    expect(script).toBeDefined();
    const res = await raw(server, script, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    // Through node:http: fetch adds `Cache-Control: no-cache` to a request with If-None-Match.
    const revalidated = await statusOf(server.url + script, {
      'accept-encoding': 'br',
      'if-none-match': res.headers.get('etag') as string,
    });
    expect(revalidated).toBe(304);

    expect((await raw(server, '/console/assets/missing-a1b2c3.js')).status).toBe(404);
    for (const path of [
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/index.html',
      '/console/Logs',
      '/console/a.b',
    ])
      expect((await raw(server, path)).status, path).toBe(400);
    expect((await raw(server, '/console/logs/entry')).status).toBe(404);
  });
});

function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}
