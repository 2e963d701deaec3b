import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, createUser, failure } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let counter = 0;
const roleId = (prefix = 'role') => `${prefix}-${Date.now()}-${counter++}`;

describe('roles and externalId', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const events = async (event: string, targetId: string) => {
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: [event], limit: 100 } },
    });
    return (data?.data ?? []).filter((e) => e.target?.id === targetId);
  };

  it('keeps a user externalId unique when set, filters by it and removes it with null', async () => {
    const externalId = `ext-${Date.now()}`;
    const user = await createUser(server.client, { externalId } as never);
    expect(user.externalId).toBe(externalId);
    expect(await createUser(server.client)).not.toHaveProperty('externalId');
    expect(
      await failure(
        server.client.POST('/v1/users', {
          body: { email: `other.${externalId}@example.com`, externalId },
        }),
      ),
    ).toMatchObject({ status: 409, code: 'conflict' });
    const other = await createUser(server.client);
    expect(
      await failure(
        server.client.PATCH('/v1/users/{id}', {
          params: { path: { id: other.id } },
          body: { externalId },
        }),
      ),
    ).toMatchObject({ status: 409 });
    const { data: found } = await server.client.GET('/v1/users', {
      params: { query: { externalId } },
    });
    expect(found?.data.map((u) => u.id)).toEqual([user.id]);
    for (const bad of ['', 'x'.repeat(256), 'a\u0000b', 5]) {
      expect(
        await failure(
          server.client.PATCH('/v1/users/{id}', {
            params: { path: { id: other.id } },
            body: { externalId: bad as never },
          }),
        ),
      ).toMatchObject({ status: 400 });
    }
    const { data: cleared } = await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: user.id } },
      body: { externalId: null },
    });
    expect(cleared?.data).not.toHaveProperty('externalId');
    const { data: reused } = await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: other.id } },
      body: { externalId },
    });
    expect(reused?.data.externalId).toBe(externalId);
  });

  it('creates, lists, reads, updates and deletes role records with ETags and audit entries', async () => {
    const id = roleId('auditors');
    const holder = await createUser(server.client, { roles: [id] });
    const { data: made, response } = await server.client.POST('/v1/roles', {
      body: { id, name: 'Auditors', externalId: `g-${id}` },
    });
    expect(response.status).toBe(201);
    expect(made?.data).toMatchObject({ id, name: 'Auditors', memberCount: 1 });
    expect(made?.data).not.toHaveProperty('description');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    expect(
      await failure(server.client.POST('/v1/roles', { body: { id, name: 'Again' } })),
    ).toMatchObject({ status: 409 });
    expect(
      await failure(server.client.POST('/v1/roles', { body: { id: 'Upper', name: 'x' } })),
    ).toMatchObject({ status: 400 });

    const { data: listed } = await server.client.GET('/v1/roles', {
      params: { query: { externalId: `g-${id}` } },
    });
    expect(listed?.data.map((r) => r.id)).toEqual([id]);

    expect(
      await failure(
        server.client.PATCH('/v1/roles/{id}', {
          params: { path: { id } },
          body: { name: 'Stale' },
          headers: { 'if-match': '"nope.1"' },
        }),
      ),
    ).toMatchObject({ status: 412 });
    const { data: renamed } = await server.client.PATCH('/v1/roles/{id}', {
      params: { path: { id } },
      body: { name: 'Auditors EU', description: 'Read logs' },
      headers: { 'if-match': etag ?? '' },
    });
    expect(renamed?.data).toMatchObject({ name: 'Auditors EU', description: 'Read logs' });
    expect(await events('role.updated', id)).toHaveLength(1);

    const { response: deleted } = await server.client.DELETE('/v1/roles/{id}', {
      params: { path: { id } },
    });
    expect(deleted.status).toBe(204);
    const { data: after } = await server.client.GET('/v1/users/{id}', {
      params: { path: { id: holder.id } },
    });
    expect(after?.data.roles).not.toContain(id);
    expect(
      await failure(server.client.GET('/v1/roles/{id}', { params: { path: { id } } })),
    ).toMatchObject({ status: 404 });
    const [deletedEntry] = await events('role.deleted', id);
    const { data: entry } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: deletedEntry?.id ?? '' } },
    });
    expect(entry?.data.metadata).toMatchObject({ removedFromUsers: 1 });
    expect(await events('role.created', id)).toHaveLength(1);
  });

  it('refuses to delete a held role without users:grant on it, changing nothing', async () => {
    const id = roleId('admins');
    await server.client.POST('/v1/roles', { body: { id, name: 'Admins' } });
    const holder = await createUser(server.client, { roles: [id] });
    const principal = `service:role-deleter-${counter++}`;
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['roles:delete'],
      resources: ['*'],
    });
    const key = await createKey(server.client, principal);
    const deleter = server.clientWith(key.secret);
    expect(
      await failure(deleter.DELETE('/v1/roles/{id}', { params: { path: { id } } })),
    ).toMatchObject({ status: 403 });
    const { data: role } = await server.client.GET('/v1/roles/{id}', { params: { path: { id } } });
    expect(role?.data.memberCount).toBe(1);
    const { data: user } = await server.client.GET('/v1/users/{id}', {
      params: { path: { id: holder.id } },
    });
    expect(user?.data.roles).toContain(id);
    // A role no user holds is deleted with roles:delete alone: nothing is granted or taken.
    const unheld = roleId('unheld');
    await server.client.POST('/v1/roles', { body: { id: unheld, name: 'Unheld' } });
    const { response } = await deleter.DELETE('/v1/roles/{id}', {
      params: { path: { id: unheld } },
    });
    expect(response.status).toBe(204);
  });
});
