import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { createKey, createPolicy, failure, outsideWindowBoundary } from '../helpers/fixtures.js';
import {
  createTestDatabase,
  localDownload,
  raw,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';
import { waitForExport } from '../helpers/wait.js';

describe('two instances on one PostgreSQL and one Redis', () => {
  let a: TestServer;
  let b: TestServer;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Both start at once against a fresh database: migrations must be applied once.
    const shared = {
      databaseUrl: database.url,
      redisUrl: inject('redisUrl'),
      adminApiKey: generateSecret(),
      signingKey: generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      // Download tokens signed by one instance are checked by the other.
      secret: generateSecret(),
    };
    [a, b] = (await Promise.all([1, 2].map(() => startTestServer(shared)))) as [
      TestServer,
      TestServer,
    ];
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it('share one exact rate-limit budget per key', async () => {
    const key = await createKey(a.client, `service:shared-${Date.now()}`, {
      plan: 'enterprise',
      rateLimitPerMinute: 30,
    });
    await createPolicy(a.client, {
      principals: [key.principal],
      actions: ['policies:list'],
      resources: ['policies'],
    });
    await outsideWindowBoundary();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        raw(i % 2 === 0 ? a : b, '/v1/policies?limit=1', {
          headers: { authorization: `Bearer ${key.secret}` },
        }),
      ),
    );
    expect(new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size).toBe(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(30);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it("refuse an inactive user's keys on the other instance at the next request, and take them back on reactivation", async () => {
    const { data } = await a.client.POST('/v1/users', {
      body: { email: `instances.${Date.now()}@example.com` },
    });
    const user = data?.data as { id: string };
    await createPolicy(a.client, {
      principals: [`user:${user.id}`],
      actions: ['users:list'],
      resources: ['users'],
    });
    const key = await createKey(a.client, `user:${user.id}`);
    const onB = b.clientWith(key.secret);
    expect((await onB.GET('/v1/users')).data).toBeDefined();
    const setActive = (active: boolean) =>
      a.client.PATCH('/v1/users/{id}', { params: { path: { id: user.id } }, body: { active } });
    await setActive(false);
    expect(await failure(onB.GET('/v1/users'))).toMatchObject({ status: 401 });
    await setActive(true);
    expect((await onB.GET('/v1/users')).data).toBeDefined();
    // Deprovisioning through SCIM is the same change: at once, on the other instance too.
    const scim = (active: boolean) =>
      fetch(`${a.url}/scim/v2/Users/${user.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${a.rootKey}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'active', value: active }],
        }),
      });
    expect((await scim(false)).status).toBe(200);
    expect(await failure(onB.GET('/v1/users'))).toMatchObject({ status: 401 });
    expect((await scim(true)).status).toBe(200);
    expect((await onB.GET('/v1/users')).data).toBeDefined();
  });

  it('stop granting on one instance at the next request after a policy is deleted on the other', async () => {
    const principal = `service:cross-${Date.now()}`;
    const policy = await createPolicy(a.client, {
      principals: [principal],
      actions: ['users:list'],
      resources: ['users'],
    });
    const key = await createKey(a.client, principal);
    expect((await b.clientWith(key.secret).GET('/v1/users')).data).toBeDefined();
    await a.client.DELETE('/v1/policies/{id}', { params: { path: { id: policy.id } } });
    expect(await failure(b.clientWith(key.secret).GET('/v1/users'))).toMatchObject({ status: 403 });
  });

  it('reject a key revoked on the other instance', async () => {
    const key = await createKey(a.client, 'service:revoke-cross');
    await createPolicy(a.client, {
      principals: ['service:revoke-cross'],
      actions: ['users:list'],
      resources: ['users'],
    });
    expect((await b.clientWith(key.secret).GET('/v1/users')).data).toBeDefined();
    await a.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } });
    expect(await failure(b.clientWith(key.secret).GET('/v1/users'))).toMatchObject({ status: 401 });
  });

  it('work on each export in exactly one instance, and serve its file from either (no shared disk)', async () => {
    await a.client.POST('/v1/logs', {
      body: {
        entries: Array.from({ length: 300 }, (_, i) => ({
          event: 'instances.export',
          actor: { type: 'service', id: `x${i}` },
          result: 'success' as const,
          timestamp: '2021-03-03T00:00:00.000Z',
          metadata: { padding: 'p'.repeat(6000 + i) },
        })),
      },
    });
    const created = await Promise.all(
      (['csv', 'json', 'csv', 'json'] as const).map((format, i) =>
        (i % 2 === 0 ? a : b).client.POST('/v1/logs/export', {
          body: { from: '2021-03-03', to: '2021-03-04', format },
        }),
      ),
    );
    const ids = created.map((r) => r.data?.data.exportId as string);
    for (const exportId of ids) {
      const state = await waitForExport(a.client, exportId);
      expect(state).toMatchObject({ status: 'completed', totalRecords: 300 });
      // Larger than one ~1 MiB chunk: the download streams several.
      expect(state?.fileSizeBytes).toBeGreaterThan(1.2 * 2 ** 20);
      const [fromA, fromB] = await Promise.all(
        [a, b].map(async (s) => {
          const res = await fetch(localDownload(s, state?.downloadUrl as string));
          expect(res.status).toBe(200);
          expect(res.headers.get('content-length')).toBe(String(state?.fileSizeBytes));
          return Buffer.from(await res.arrayBuffer());
        }),
      );
      expect(fromA?.length).toBe(state?.fileSizeBytes);
      expect(fromA?.equals(fromB as Buffer)).toBe(true);
    }
    const claimedBy = await database.query<{ claimed_by: string }>(
      'SELECT claimed_by FROM exports WHERE id = ANY($1)',
      [ids],
    );
    expect(claimedBy.map((r) => r.claimed_by).every(Boolean)).toBe(true);
    for (const s of [a, b]) expect(existsSync(join(s.config.dataDir, 'exports'))).toBe(false);
  });

  it('seal what both ingest at once into one gapless, valid chain', async () => {
    const batches = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        (n % 2 === 0 ? a : b).client.POST('/v1/logs', {
          body: {
            entries: Array.from({ length: 100 }, (_, i) => ({
              event: 'instances.chain',
              actor: { type: 'service', id: `c${n}-${i}` },
              result: 'success' as const,
              metadata: { n, i },
            })),
          },
        }),
      ),
    );
    expect(batches.every((r) => r.response.status === 201)).toBe(true);
    await Promise.all([a.sealer.flush(), b.sealer.flush()]);
    const [chain] = await database.query<{ n: number; max: number; entries: number }>(
      `SELECT count(*)::int AS n, max(seq)::int AS max,
              (SELECT count(*)::int FROM log_entries) AS entries FROM log_chain`,
    );
    expect(chain).toEqual({ n: chain?.entries, max: chain?.entries, entries: chain?.entries });
    for (const server of [a, b]) {
      const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
      expect(data?.data).toMatchObject({ valid: true, checkedEntries: chain?.entries });
    }
  });
});
