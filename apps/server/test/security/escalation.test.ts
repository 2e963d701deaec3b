import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, createUser, failure, uniqueEmail } from '../helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';

/** docs/auth-and-access.md: roles are granted only with `users:grant` on `roles/<role>`; keys are seen only by their principal. */
describe('no escalation through roles or keys', () => {
  let server: TestServer;
  let self: { id: string };
  let selfKey: string;
  let support: { id: string };
  let supportKey: string;

  const as = (secret: string) => server.clientWith(secret);
  const rolesOf = async (id: string) =>
    (await server.client.GET('/v1/users/{id}', { params: { path: { id } } })).data?.data.roles;

  beforeAll(async () => {
    server = await startTestServer();
    // The attacker's setup of issue 9: a user who may read and update itself, and an admin role.
    self = await createUser(server.client, { roles: ['staff'] });
    selfKey = (await createKey(server.client, `user:${self.id}`)).secret;
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['users:read', 'users:update'],
      resources: ['users/${self}'],
    });
    await createPolicy(server.client, {
      principals: ['role:admin'],
      actions: ['*'],
      resources: ['*'],
    });
    // Support staff may create and update users, and grant `viewer` and nothing else.
    support = await createUser(server.client, { roles: ['support'] });
    supportKey = (await createKey(server.client, `user:${support.id}`)).secret;
    await createPolicy(server.client, {
      principals: ['role:support'],
      actions: ['users:create', 'users:update', 'users:read'],
      resources: ['users', 'users/*'],
    });
    await createPolicy(server.client, {
      principals: ['role:support'],
      actions: ['users:grant'],
      resources: ['roles/viewer'],
    });
  });
  afterAll(() => server?.stop());

  it('refuses a user promoting itself to admin with its own key, and changes nothing', async () => {
    const res = await raw(server, `/v1/users/${self.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${selfKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ roles: ['staff', 'admin'] }),
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe('forbidden');
    expect(await rolesOf(self.id)).toEqual(['staff']);
    // …so the allow-everything policy it wanted stays out of reach.
    const policy = await failure(
      as(selfKey).POST('/v1/policies', {
        body: { name: 'pwn', effect: 'allow', principals: ['*'], actions: ['*'], resources: ['*'] },
      }),
    );
    expect(policy.status).toBe(403);
  });

  it('still lets the user edit its own name and metadata', async () => {
    const { data } = await as(selfKey).PATCH('/v1/users/{id}', {
      params: { path: { id: self.id } },
      body: { name: 'Renamed', metadata: { desk: 4 }, roles: ['staff'] },
    });
    expect(data?.data).toMatchObject({ name: 'Renamed', roles: ['staff'] });
  });

  it('refuses removing a role without the grant', async () => {
    const denied = await failure(
      as(selfKey).PATCH('/v1/users/{id}', {
        params: { path: { id: self.id } },
        body: { roles: [] },
      }),
    );
    expect(denied.status).toBe(403);
    expect(await rolesOf(self.id)).toEqual(['staff']);
  });

  it('grants exactly the roles a policy allows, on create and on PATCH', async () => {
    const created = await as(supportKey).POST('/v1/users', {
      body: { email: uniqueEmail('viewer'), roles: ['viewer'] },
    });
    const viewer = created.data?.data as { id: string };
    expect(viewer.id).toMatch(/^user_/);

    const email = uniqueEmail('admin');
    const createAdmin = await failure(
      as(supportKey).POST('/v1/users', { body: { email, roles: ['viewer', 'admin'] } }),
    );
    expect(createAdmin.status).toBe(403);
    const listed = await server.client.GET('/v1/users', { params: { query: { email } } });
    expect(listed.data?.data).toEqual([]);

    const addAdmin = await failure(
      as(supportKey).PATCH('/v1/users/{id}', {
        params: { path: { id: viewer.id } },
        body: { roles: ['viewer', 'admin'] },
      }),
    );
    expect(addAdmin.status).toBe(403);
    const removeOther = await failure(
      as(supportKey).PATCH('/v1/users/{id}', {
        params: { path: { id: self.id } },
        body: { roles: [] },
      }),
    );
    expect(removeOther.status).toBe(403);
    expect(await rolesOf(viewer.id)).toEqual(['viewer']);
    expect(await rolesOf(self.id)).toEqual(['staff']);

    const removeViewer = await as(supportKey).PATCH('/v1/users/{id}', {
      params: { path: { id: viewer.id } },
      body: { roles: [] },
    });
    expect(removeViewer.data?.data.roles).toEqual([]);
  });

  it('leaves the root key unaffected', async () => {
    const { data } = await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: support.id } },
      body: { roles: ['support', 'admin'] },
    });
    expect(data?.data.roles).toEqual(['support', 'admin']);
    await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: support.id } },
      body: { roles: ['support'] },
    });
  });
});
