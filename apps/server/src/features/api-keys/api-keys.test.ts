import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, createUser, failure } from '../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { ApiKeysService, hashSecret } from './service.js';

/** createApiKey, listApiKeys, deleteApiKey: what they answer, refuse, and never show. */
describe('API keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('creates keys whose secret is shown once, lists them without secrets or hashes', async () => {
    const key = await createKey(server.client, 'service:ci', { plan: 'pro' });
    expect(key.secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ principal: 'service:ci', plan: 'pro', rateLimitPerMinute: 1000 });
    const listed = [];
    for await (const k of server.client.paginate('/v1/api-keys')) listed.push(k);
    const item = listed.find((k) => k.id === key.id);
    expect(item).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(key.secret);
    expect(JSON.stringify(listed)).not.toMatch(/secret|hash/i);
  });

  it('checks plans: enterprise needs rateLimitPerMinute, others refuse it; a user principal must exist', async () => {
    expect(
      await failure(createKey(server.client, 'service:e', { plan: 'enterprise' })),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(createKey(server.client, 'service:e', { plan: 'pro', rateLimitPerMinute: 5 })),
    ).toMatchObject({ status: 400 });
    expect(
      (
        await createKey(server.client, 'service:e', {
          plan: 'enterprise',
          rateLimitPerMinute: 5000,
        })
      ).rateLimitPerMinute,
    ).toBe(5000);
    expect(
      await failure(createKey(server.client, 'user:user_00000000000000000000000000')),
    ).toMatchObject({ status: 400 });
  });

  it('refuses escalation: other principals, higher plans or limits, later expiry', async () => {
    await createPolicy(server.client, {
      principals: ['service:minter'],
      actions: ['apikeys:*'],
      resources: ['apikeys', 'apikeys/*'],
    });
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const minter = await createKey(server.client, 'service:minter', { plan: 'pro', expiresAt });
    const asMinter = server.clientWith(minter.secret);
    expect(await failure(createKey(asMinter, 'service:other'))).toMatchObject({ status: 403 });
    expect(
      await failure(
        createKey(asMinter, 'service:minter', { plan: 'enterprise', rateLimitPerMinute: 999 }),
      ),
    ).toMatchObject({ status: 403 });
    expect(await failure(createKey(asMinter, 'service:minter', { plan: 'pro' }))).toMatchObject({
      status: 403,
    });
    const later = new Date(Date.now() + 7_200_000).toISOString();
    expect(
      await failure(createKey(asMinter, 'service:minter', { plan: 'pro', expiresAt: later })),
    ).toMatchObject({ status: 403 });
    const ok = await createKey(asMinter, 'service:minter', { plan: 'free', expiresAt });
    expect(ok.plan).toBe('free');
    const own = [];
    for await (const k of asMinter.paginate('/v1/api-keys')) own.push(k);
    expect(own.every((k) => k.principal === 'service:minter')).toBe(true);
    const root = own.find((k) => k.name === 'root');
    expect(root).toBeUndefined();
  });

  it('does not let the root key be revoked', async () => {
    let rootId: string | undefined;
    for await (const k of server.client.paginate('/v1/api-keys'))
      if (k.name === 'root') rootId = k.id;
    expect(
      await failure(
        server.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: rootId as string } } }),
      ),
    ).toMatchObject({ status: 403 });
  });

  it("answers 404 to a key revoking another principal's key, even when a policy allows it", async () => {
    const other = await createUser(server.client);
    const otherKey = await createKey(server.client, `user:${other.id}`);
    const revoker = await createKey(server.client, 'service:revoker');
    await createPolicy(server.client, {
      principals: ['service:revoker'],
      actions: ['apikeys:delete', 'apikeys:list'],
      resources: ['apikeys', 'apikeys/*'],
    });
    const res = await raw(server, `/v1/api-keys/${otherKey.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${revoker.secret}` },
    });
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('not_found');
    // The victim's key still works.
    const stillValid = await raw(server, '/v1/api-keys', {
      headers: { authorization: `Bearer ${otherKey.secret}` },
    });
    expect(stillValid.status).not.toBe(401);
    // Its own keys it may revoke.
    const own = await createKey(server.client, 'service:revoker');
    const ownRes = await raw(server, `/v1/api-keys/${own.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${revoker.secret}` },
    });
    expect(ownRes.status).toBe(204);
  });

  it('never shows the root key to a non-root key, even one whose principal is service:root', async () => {
    const impostor = await createKey(server.client, 'service:root');
    const listed = await raw(server, '/v1/api-keys', {
      headers: { authorization: `Bearer ${impostor.secret}` },
    });
    await createPolicy(server.client, {
      principals: ['service:root'],
      actions: ['apikeys:*'],
      resources: ['apikeys', 'apikeys/*'],
    });
    const ids = (
      (
        await json(
          await raw(server, '/v1/api-keys', {
            headers: { authorization: `Bearer ${impostor.secret}` },
          }),
        )
      ).data as { id: string }[]
    ).map((k) => k.id);
    expect(listed.status).toBe(403);
    expect(ids).toEqual([impostor.id]);
    const rootId = (
      (await server.client.GET('/v1/api-keys', { params: { query: { limit: 100 } } })).data?.data ??
      []
    ).find((k) => k.name === 'root')?.id as string;
    expect(rootId).toMatch(/^key_/);
    const res = await raw(server, `/v1/api-keys/${rootId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${impostor.secret}` },
    });
    expect(res.status).toBe(404);
  });
});

describe('the generated root key file', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  /** A service on a database with no root key yet; it keeps what it inserts. */
  function serviceWithoutRootKey() {
    const inserted: { secretHash: string }[] = [];
    const service = new ApiKeysService({
      keys: {
        findRoot: async () => null,
        insert: async (row: { secretHash: string }) => {
          inserted.push(row);
          return row as never;
        },
      },
      versions: { bump: async () => {} },
    } as unknown as ConstructorParameters<typeof ApiKeysService>[0]);
    return { service, inserted };
  }

  it('never writes through a link planted where it goes, nor into a file left there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-root-key-'));
    const elsewhere = await mkdtemp(join(tmpdir(), 'secadmin-planted-'));
    dirs.push(dataDir, elsewhere);
    const target = join(elsewhere, 'readable-by-others');
    await writeFile(target, 'untouched\n', { mode: 0o644 });
    await symlink(target, join(dataDir, 'root-api-key'));

    const { service, inserted } = serviceWithoutRootKey();
    const { generatedFile } = await service.ensureRootKey({
      secret: undefined,
      dataDir,
      rateLimit: 100,
    });

    expect(await readFile(target, 'utf8')).toBe('untouched\n');
    const file = await lstat(generatedFile as string);
    expect(file.isFile()).toBe(true);
    expect(file.mode & 0o777).toBe(0o600);
    const secret = (await readFile(generatedFile as string, 'utf8')).trim();
    expect(inserted.map((row) => row.secretHash)).toEqual([hashSecret(secret)]);
  });
});
