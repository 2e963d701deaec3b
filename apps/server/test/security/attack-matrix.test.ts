import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/features/api-keys/service.js';
import { loadSpec } from '../../src/http/operations.js';
import { createKey, createPolicy, createUser } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitUntilPast } from '../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: spec nodes
type Node = Record<string, any>;
const spec = loadSpec() as Node;

interface Operation {
  id: string;
  method: string;
  path: string;
  example: unknown;
}

const operations: Operation[] = Object.entries(spec.paths as Record<string, Node>)
  .filter(([path]) => path.startsWith('/v1/'))
  .flatMap(([path, item]) =>
    ['get', 'post', 'patch', 'delete']
      .filter((m) => item[m])
      .map((m) => ({
        id: item[m].operationId as string,
        method: m.toUpperCase(),
        path,
        example: item[m].requestBody?.content?.['application/json']?.example,
      })),
  );

describe('the attack matrix: every operation × every way in that must fail', () => {
  let server: TestServer;
  const bodies: string[] = [];
  const secrets: string[] = [];
  let ids: Record<string, string>;
  let keys: Record<string, string>;
  let ipCounter = 0;

  beforeAll(async () => {
    // Distinct client IPs (via the proxy header) so that the per-IP budget for requests
    // without a valid key does not turn the expected 401s into 429s.
    server = await startTestServer({ trustProxy: true });
    const password = 'attack-matrix-password';
    const victim = await createUser(server.client, { password });
    const attacker = await createUser(server.client);
    const policy = await createPolicy(server.client, {});
    await server.client.POST('/v1/roles', { body: { id: 'matrix-role', name: 'Matrix role' } });
    const [log] =
      (
        await server.client.POST('/v1/logs', {
          body: { entries: [{ event: 'a.b', actor: { type: 'user' }, result: 'success' }] },
        })
      ).data?.data ?? [];
    const exp = (
      await server.client.POST('/v1/logs/export', {
        body: { from: '2020-01-01', to: '2030-01-01' },
      })
    ).data?.data;
    const victimKey = await createKey(server.client, `user:${victim.id}`);
    ids = {
      user: victim.id,
      policy: policy.id,
      log: log?.id as string,
      export: exp?.exportId as string,
      key: victimKey.id,
    };

    const revoked = await createKey(server.client, 'service:revoked');
    await server.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: revoked.id } } });
    const expired = await createKey(server.client, 'service:expired', {
      expiresAt: new Date(Date.now() + 1200).toISOString(),
    });
    // Function level: may only list logs. Object level: may do anything, but only on its own objects.
    const functional = await createKey(server.client, 'service:logs-reader');
    await createPolicy(server.client, {
      principals: ['service:logs-reader'],
      actions: ['logs:list'],
      resources: ['logs'],
    });
    const objectKey = await createKey(server.client, `user:${attacker.id}`);
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['*'],
      resources: [
        'users/${self}',
        'policies/${self}',
        'logs/${self}',
        'exports/${self}',
        'apikeys/${self}',
      ],
    });
    keys = {
      revoked: revoked.secret,
      expired: expired.secret,
      functional: functional.secret,
      object: objectKey.secret,
    };
    secrets.push(
      server.rootKey,
      revoked.secret,
      expired.secret,
      functional.secret,
      objectKey.secret,
      victimKey.secret,
      password,
    );
    secrets.push(...secrets.map(hashSecret));
    // The download token of an export is a secret too: no other response may carry it.
    for (let i = 0; i < 100; i++) {
      const state = (
        await server.client.GET('/v1/logs/export/{exportId}', {
          params: { path: { exportId: ids.export as string } },
        })
      ).data?.data;
      if (state?.downloadUrl) {
        secrets.push(new URL(state.downloadUrl).searchParams.get('token') as string);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(secrets).toHaveLength(15);
    await waitUntilPast('the expired key to expire', expired.expiresAt as string);
  });
  afterAll(() => server?.stop());

  async function attempt(
    op: Operation,
    headers: Record<string, string>,
    query = '',
  ): Promise<number> {
    const path = op.path
      .replace('/v1/users/{id}', `/v1/users/${ids.user}`)
      .replace('/v1/policies/{id}', `/v1/policies/${ids.policy}`)
      .replace('/v1/roles/{id}', '/v1/roles/matrix-role')
      .replace('/v1/logs/export/{exportId}', `/v1/logs/export/${ids.export}`)
      .replace('/v1/logs/{id}', `/v1/logs/${ids.log}`)
      .replace('/v1/api-keys/{id}', `/v1/api-keys/${ids.key}`);
    const res = await fetch(`${server.url}${path}${query}`, {
      method: op.method,
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `10.9.${Math.floor(ipCounter / 250)}.${ipCounter++ % 250}`,
        ...headers,
      },
      ...(op.example === undefined ? {} : { body: JSON.stringify(op.example) }),
    });
    bodies.push(await res.text());
    return res.status;
  }

  async function snapshot(): Promise<string> {
    const rows = await server.db.query(
      `SELECT (SELECT md5(coalesce(string_agg(u::text, ',' ORDER BY id), '')) FROM users u) AS users,
              (SELECT md5(coalesce(string_agg(p::text, ',' ORDER BY id), '')) FROM policies p) AS policies,
              (SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY id), '')) FROM roles r) AS roles,
              (SELECT md5(coalesce(string_agg(k::text, ',' ORDER BY id), '')) FROM api_keys k) AS keys,
              (SELECT md5(coalesce(string_agg(e.id || e.status, ',' ORDER BY id), '')) FROM exports e) AS exports,
              (SELECT count(*) FROM log_entries WHERE event <> 'auth.failed') AS entries`,
    );
    return JSON.stringify(rows);
  }

  it('answers exactly 401 or 403 for each of 7 attacks on each operation, and changes nothing', async () => {
    await server.worker.stop();
    const before = await snapshot();
    const cases: [string, (op: Operation) => Promise<number>, number][] = [
      ['no key', (op) => attempt(op, {}), 401],
      ['malformed key', (op) => attempt(op, { authorization: 'Bearer not-a-key' }), 401],
      ['revoked key', (op) => attempt(op, { authorization: `Bearer ${keys.revoked}` }), 401],
      ['expired key', (op) => attempt(op, { authorization: `Bearer ${keys.expired}` }), 401],
      [
        'root key in the query string',
        (op) => attempt(op, {}, `?api_key=${server.rootKey}&access_token=${server.rootKey}`),
        401,
      ],
      [
        'key allowed only another action',
        (op) => attempt(op, { authorization: `Bearer ${keys.functional}` }),
        403,
      ],
      [
        'key allowed only its own objects',
        (op) => attempt(op, { authorization: `Bearer ${keys.object}` }),
        403,
      ],
    ];
    const results: string[] = [];
    let count = 0;
    for (const op of operations) {
      for (const [name, run, expected] of cases) {
        if (op.id === 'listLogs' && name === 'key allowed only another action') continue; // the one it is allowed
        const status = await run(op);
        count++;
        if (status !== expected)
          results.push(`${op.id} / ${name}: ${status}, expected ${expected}`);
      }
    }
    expect(results).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(operations.length * 7 - 1);
    expect(await snapshot()).toBe(before);
  });

  it('rejects mass assignment of server-owned fields', async () => {
    const attempts: [string, unknown][] = [
      ['/v1/users', { email: 'mass@example.com', id: 'user_00000000000000000000000000' }],
      ['/v1/users', { email: 'mass@example.com', emailVerified: true }],
      ['/v1/users', { email: 'mass@example.com', createdAt: '2020-01-01T00:00:00Z' }],
      ['/v1/users', { email: 'mass@example.com', passwordHash: 'scrypt$1$1$1$a$b' }],
      [
        '/v1/api-keys',
        {
          name: 'k',
          principal: 'service:x',
          secret: 'sk_chosenchosenchosenchosenchosenchosenchosen',
        },
      ],
      ['/v1/api-keys', { name: 'k', principal: 'service:x', isRoot: true }],
      [
        '/v1/policies',
        {
          name: 'p',
          effect: 'allow',
          principals: ['*'],
          actions: ['*'],
          resources: ['*'],
          id: 'pol_00000000000000000000000000',
        },
      ],
    ];
    for (const [path, body] of attempts) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      bodies.push(await res.text());
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('never returns a secret, a hash or a password in any response of this suite', () => {
    expect(bodies.length).toBeGreaterThan(100);
    for (const body of bodies) {
      for (const secret of secrets)
        expect(body.includes(secret), `a response contains a secret: ${body.slice(0, 200)}`).toBe(
          false,
        );
      expect(body).not.toMatch(/scrypt\$/);
    }
  });
});
