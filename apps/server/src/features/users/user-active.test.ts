import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, createUser, failure } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('user active', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const setActive = (id: string, active: boolean) =>
    server.client.PATCH('/v1/users/{id}', { params: { path: { id } }, body: { active } });

  it('is true by default, may be set on create and PATCH, and filters the list', async () => {
    const on = await createUser(server.client);
    expect(on.active).toBe(true);
    const off = await createUser(server.client, { active: false });
    expect(off.active).toBe(false);
    const inactive = [];
    for await (const u of server.client.paginate('/v1/users', { limit: 100, active: false }))
      inactive.push(u.id);
    expect(inactive).toContain(off.id);
    expect(inactive).not.toContain(on.id);
    const active = [];
    for await (const u of server.client.paginate('/v1/users', { limit: 100, active: true }))
      active.push(u.id);
    expect(active).toContain(on.id);
    expect(active).not.toContain(off.id);
    const listed = new Map<string, boolean>();
    for await (const u of server.client.paginate('/v1/users', { limit: 100 }))
      listed.set(u.id, u.active);
    expect([listed.get(on.id), listed.get(off.id)]).toEqual([true, false]);

    const patched = await setActive(on.id, false);
    expect(patched.data?.data.active).toBe(false);
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.updated'], limit: 100 } },
    });
    expect(data?.data.some((e) => e.target?.id === on.id)).toBe(true);

    for (const bad of ['yes', '1', '']) {
      const result = await failure(
        server.client.GET('/v1/users', { params: { query: { active: bad as never } } }),
      );
      expect(result.status).toBe(400);
    }
    expect(
      await failure(
        server.client.PATCH('/v1/users/{id}', {
          params: { path: { id: on.id } },
          body: { active: 'false' } as never,
        }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it('denies every decision about an inactive user, whatever the policies say', async () => {
    const user = await createUser(server.client, { roles: ['inactive-test'] });
    await createPolicy(server.client, {
      principals: [`user:${user.id}`, 'role:inactive-test'],
      actions: ['*'],
      resources: ['*'],
    });
    const check = { principal: `user:${user.id}`, action: 'users:list', resource: 'users' };
    const simulate = async (explain = false) =>
      (await server.client.POST('/v1/policies/simulate', { body: { ...check, explain } })).data
        ?.data;
    expect(await simulate()).toMatchObject({ allowed: true });
    expect(await simulate()).not.toHaveProperty('principalInactive');
    await setActive(user.id, false);
    expect(await simulate()).toMatchObject({
      allowed: false,
      effect: 'deny',
      decision: 'implicit_deny',
      matchedPolicies: [],
      principalInactive: true,
    });
    expect(await simulate(true)).toMatchObject({ principalInactive: true, explanation: [] });
    const { data } = await server.client.POST('/v1/policies/simulate/batch', {
      body: { checks: [check, { ...check, principal: 'role:inactive-test' }] },
    });
    expect(data?.data.results.map((r) => [r.allowed, r.principalInactive])).toEqual([
      [false, true],
      [true, undefined],
    ]);
    await setActive(user.id, true);
    expect(await simulate()).toMatchObject({ allowed: true });
  });

  it("answers 401 to an inactive user's keys, which cannot reactivate it, and work again after", async () => {
    const user = await createUser(server.client);
    await createPolicy(server.client, {
      principals: [`user:${user.id}`],
      actions: ['users:read', 'users:update'],
      resources: [`users/${user.id}`],
    });
    const key = await createKey(server.client, `user:${user.id}`);
    const own = server.clientWith(key.secret);
    const read = () => own.GET('/v1/users/{id}', { params: { path: { id: user.id } } });
    expect((await read()).data?.data.active).toBe(true);

    // It may deactivate itself (users:update on itself), and is then locked out.
    await own.PATCH('/v1/users/{id}', {
      params: { path: { id: user.id } },
      body: { active: false },
    });
    expect(await failure(read())).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(
      await failure(
        own.PATCH('/v1/users/{id}', { params: { path: { id: user.id } }, body: { active: true } }),
      ),
    ).toMatchObject({ status: 401 });
    const stored = await server.client.GET('/v1/users/{id}', {
      params: { path: { id: user.id } },
    });
    expect(stored.data?.data.active).toBe(false);

    await setActive(user.id, true);
    expect((await read()).data?.data.active).toBe(true);
  });
});
