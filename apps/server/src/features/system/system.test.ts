import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchMain, spawnServer } from '../../../test/helpers/process.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { waitFor } from '../../../test/helpers/wait.js';

describe('system routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const readiness = async () => json(await raw(server, '/readyz'));

  it('answers health and readiness without a key or rate limit', async () => {
    await server.searchable();
    await waitFor('the analytics store to be seen caught up', async () => {
      return (await readiness()).checks.analytics === 'ok';
    });
    const expected = {
      '/healthz': { status: 'ok' },
      '/readyz': {
        status: 'ok',
        checks: { database: 'ok', rateLimitStore: 'memory', analytics: 'ok' },
      },
    };
    for (const [path, body] of Object.entries(expected)) {
      const res = await raw(server, path);
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual(body);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('says when search lags behind the sealed log, and stays ready meanwhile', async () => {
    await server.searchIndex.stop();
    try {
      const { response } = await server.client.POST('/v1/logs', {
        body: {
          entries: [{ event: 'user.login', actor: { type: 'user', id: 'u' }, result: 'success' }],
        },
      });
      expect(response.status).toBe(201);
      await server.sealer.flush();
      await waitFor('readiness to say search lags', async () => {
        return (await readiness()).checks.analytics === 'lagging';
      });
      const res = await raw(server, '/readyz');
      expect(res.status).toBe(200);
      expect((await json(res)).status).toBe('ok');

      await server.searchable();
      await waitFor('readiness to say search caught up', async () => {
        return (await readiness()).checks.analytics === 'ok';
      });
    } finally {
      server.searchIndex.start();
    }
  });

  it('serves the bundled spec with every interface operation', async () => {
    const res = await raw(server, '/openapi.json');
    expect(res.status).toBe(200);
    const spec = await json(res);
    expect(spec.openapi).toBe('3.1.0');
    const operations = Object.entries(
      spec.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    for (const expected of [
      'GET /v1/policies listPolicies',
      'GET /v1/policies/{id} getPolicy',
      'POST /v1/policies createPolicy',
      'PATCH /v1/policies/{id} updatePolicy',
      'DELETE /v1/policies/{id} deletePolicy',
      'POST /v1/policies/simulate simulatePolicy',
      'GET /v1/logs listLogs',
      'GET /v1/logs/{id} getLog',
      'POST /v1/logs/search searchLogs',
      'POST /v1/logs/export createExport',
      'GET /v1/logs/export/{exportId} getExport',
      'GET /v1/users listUsers',
      'GET /v1/users/{id} getUser',
      'POST /v1/users createUser',
      'PATCH /v1/users/{id} updateUser',
      'DELETE /v1/users/{id} deleteUser',
    ]) {
      const [method, path, id] = expected.split(' ');
      expect(operations).toContain(`${method} ${path} ${id}`);
    }
  });

  it('serves the rendered reference at /docs and /docs/, and nothing at /docs//', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await raw(server, path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('simulatePolicy');
    }
    expect((await raw(server, '/docs//')).status).toBe(404);
    expect((await raw(server, '/healthz/')).status).toBe(404);
  });

  it('serves the reference icon at /favicon.ico', async () => {
    const res = await rawGet(server, '/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.body.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });

  it.each([
    ['/docs', (body: Buffer) => expect(body.toString()).toContain('simulatePolicy')],
    ['/openapi.json', (body: Buffer) => expect(JSON.parse(body.toString()).openapi).toBe('3.1.0')],
  ])(
    'sends %s compressed as the client accepts, with an ETag to revalidate',
    async (path, check) => {
      const plain = await rawGet(server, path);
      expect(plain.headers['content-encoding']).toBeUndefined();
      check(plain.body);
      const decoders = { br: brotliDecompressSync, gzip: gunzipSync } as const;
      const etags = new Set([plain.headers.etag]);
      for (const [encoding, decode] of Object.entries(decoders)) {
        const res = await rawGet(server, path, {
          'accept-encoding': `${encoding}, identity;q=0.5`,
        });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.headers.vary).toMatch(/Accept-Encoding/i);
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.body.length).toBeLessThan(plain.body.length / 3);
        expect(decode(res.body).equals(plain.body)).toBe(true);
        etags.add(res.headers.etag);

        const again = await rawGet(server, path, {
          'accept-encoding': encoding,
          'if-none-match': `"stale", ${res.headers.etag}`,
        });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(res.headers.etag);
      }
      expect(etags.size).toBe(3); // one per representation
      const curl = await rawGet(server, path, { 'accept-encoding': 'deflate, gzip, br, zstd' });
      expect(curl.headers['content-encoding']).toBe('br');
      const refused = await rawGet(server, path, { 'accept-encoding': 'br;q=0, gzip' });
      expect(refused.headers['content-encoding']).toBe('gzip');
      const stale = await rawGet(server, path, { 'if-none-match': '"stale"' });
      expect(stale.status).toBe(200);
    },
  );

  it('lets the reference load only what its CSP allows (no remote resource)', async () => {
    const res = await raw(server, '/docs');
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' data:");
    const html = await res.text();
    expect(html).not.toMatch(/\bsrc[=:]["'`]https?:/);
  });

  // Issue 41: `/docs` shares the console's origin, and its policy let any inline script run.
  it("runs only the reference's own inline scripts, each allowed by its hash", async () => {
    const res = await raw(server, '/docs');
    const csp = res.headers.get('content-security-policy') ?? '';
    const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1]?.trim().split(/\s+/) ?? [];
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    const inline = [
      ...(await res.text()).matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g),
    ];
    expect(inline.length).toBeGreaterThan(0);
    expect(scriptSrc).toEqual([
      "'self'",
      ...inline.map(
        ([, script]) =>
          `'sha256-${createHash('sha256')
            .update(script ?? '')
            .digest('base64')}'`,
      ),
    ]);
  });
});

describe('unexpected failures', () => {
  it('answer 500 internal_error with the request id, and nothing internal', async () => {
    const server = await startTestServer();
    try {
      await server.db.close(); // every query now fails
      const res = await raw(server, '/v1/users', {
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
      expect(res.status).toBe(500);
      expect(await json(res)).toEqual({
        error: { code: 'internal_error', message: 'An unexpected error occurred.' },
        meta: { requestId: res.headers.get('x-request-id') },
      });
      expect((await raw(server, '/readyz')).status).toBe(503);
    } finally {
      await server.stop().catch(() => {});
    }
  });
});

describe('the process', () => {
  it('refuses a second server on the same embedded data dir', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-second-'));
    // Both on the embedded database: test servers run on the suite's PostgreSQL instead.
    const first = await spawnServer({ SECADMIN_DATA_DIR: dataDir });
    try {
      const { child, output } = launchMain({ SECADMIN_DATA_DIR: dataDir, PORT: '0' });
      const [code] = await once(child, 'exit');
      expect(code).toBe(1);
      expect(output()).toContain('is in use by process');
    } finally {
      await first.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('starts, generates a root key file (0600) without logging it, and stops cleanly on SIGTERM', async () => {
    const { mkdtemp, readFile, stat, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-main-'));
    try {
      const { child, output } = launchMain({
        SECADMIN_DATA_DIR: dataDir,
        PORT: '0',
        SECADMIN_ADMIN_API_KEY: '',
      });
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no listening line in: ${output()}`)),
          20_000,
        );
        child.stdout?.on('data', () => {
          const match = /"url":"([^"]+)"/.exec(output());
          if (match) {
            clearTimeout(timer);
            resolve(match[1] as string);
          }
        });
      });
      const keyFile = join(dataDir, 'root-api-key');
      const secret = (await readFile(keyFile, 'utf8')).trim();
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
      const res = await fetch(`${url}/v1/users`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      expect(res.status).toBe(200);
      const password = 'never-log-this-password';
      const created = await fetch(`${url}/v1/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'log-check@example.com', password }),
      });
      expect(created.status).toBe(201);
      const rejected = await fetch(`${url}/v1/users`, {
        headers: { authorization: 'Bearer sk_guessedguessedguessedguessedguessed' },
      });
      expect(rejected.status).toBe(401);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(output()).toContain(keyFile);
      expect(output()).toContain('"path":"/v1/users"');
      for (const secretText of [secret, password, 'sk_guessed', 'scrypt$']) {
        expect(output()).not.toContain(secretText);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** A GET as sent, without fetch's own Accept-Encoding and decoding. */
function rawGet(
  server: { url: string },
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${server.url}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}
