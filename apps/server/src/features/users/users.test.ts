import { createSecadminClient } from '@secadmin/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKey,
  createPolicy,
  createUser,
  failure,
  uniqueEmail,
} from '../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { waitUntilPast } from '../../../test/helpers/wait.js';

describe('users', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('creates a user with exactly the interface fields, never the password', async () => {
    const email = uniqueEmail('Ada');
    const res = await raw(server, '/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        email,
        name: 'Ada',
        password: 'correct-horse-battery',
        roles: ['auditor'],
        metadata: { team: 'red' },
      }),
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(Object.keys(body.data).sort()).toEqual(
      [
        'active',
        'createdAt',
        'email',
        'emailVerified',
        'id',
        'metadata',
        'name',
        'roles',
        'updatedAt',
      ].sort(),
    );
    expect(body.data).toMatchObject({
      email,
      name: 'Ada',
      emailVerified: false,
      roles: ['auditor'],
      metadata: { team: 'red' },
    });
    expect(body.data.id).toMatch(/^user_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.data.updatedAt).toBe(body.data.createdAt);
    expect(body.meta.requestId).toBe(res.headers.get('x-request-id'));
    const [stored] = await server.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE id = $1',
      [body.data.id],
    );
    expect(stored?.password_hash).toMatch(
      /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/,
    );
    expect(stored?.password_hash).not.toContain('correct-horse-battery');
    expect(JSON.stringify(body)).not.toContain('correct-horse-battery');
    expect(JSON.stringify(body)).not.toContain('scrypt');
  });

  it('rejects a duplicate email in any case with 409, and invalid bodies with every problem', async () => {
    const email = uniqueEmail('Case');
    await createUser(server.client, { email });
    expect(
      await failure(server.client.POST('/v1/users', { body: { email: email.toUpperCase() } })),
    ).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    const bad = await failure(
      server.client.POST('/v1/users', {
        body: {
          email: 'not-an-email',
          password: 'short',
          id: 'user_x',
          emailVerified: true,
        } as never,
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('invalid_request');
    const fields = bad.details.map((d) => d.field).sort();
    expect(fields).toEqual(['body.email', 'body.emailVerified', 'body.id', 'body.password']);
  });

  it('refuses a NUL character in any string with a 400 naming the field (found by fuzzing)', async () => {
    const bad = await failure(
      server.client.POST('/v1/users', { body: { email: uniqueEmail(), name: 'a\u0000b' } }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(bad.details).toEqual([
      { field: 'body.name', message: 'must not contain the NUL character (U+0000)' },
    ]);
    const nested = await failure(
      server.client.POST('/v1/users', {
        body: { email: uniqueEmail(), metadata: { deep: ['x', '\u0000'] } },
      }),
    );
    expect(nested.details).toEqual([
      { field: 'body.metadata.deep[1]', message: 'must not contain the NUL character (U+0000)' },
    ]);
  });

  it('gets a user with all fields and 404s an unknown id', async () => {
    const user = await createUser(server.client, { metadata: { a: 1 } });
    const { data } = await server.client.GET('/v1/users/{id}', {
      params: { path: { id: user.id } },
    });
    expect(data?.data).toEqual(user);
    for (const id of ['user_00000000000000000000000000', 'nope']) {
      expect(
        await failure(server.client.GET('/v1/users/{id}', { params: { path: { id } } })),
      ).toMatchObject({
        status: 404,
        code: 'not_found',
      });
    }
  });

  it('lists with the list fields (and active) only, oldest first, through cursor pages without skips or repeats', async () => {
    const role = `pager-${Date.now()}`;
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await createUser(server.client, { roles: [role] }));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data } = await server.client.GET('/v1/users', {
        params: { query: { limit: 3, role, ...(cursor ? { cursor } : {}) } },
      });
      if (!data) throw new Error('no data');
      pages++;
      if (data.pagination.hasMore) expect(data.data).toHaveLength(3);
      else expect(data.pagination.nextCursor).toBeUndefined();
      for (const item of data.data) {
        expect(Object.keys(item).sort()).toEqual([
          'active',
          'createdAt',
          'email',
          'id',
          'name',
          'roles',
        ]);
        seen.push(item.id);
      }
      if (pages === 1) await createUser(server.client, { roles: [role] }); // added while paging
      cursor = data.pagination.nextCursor;
    } while (cursor);
    expect(seen.slice(0, 7)).toEqual(created.map((u) => u.id));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(8);
  });

  it('filters by email case-insensitively and by role', async () => {
    const email = uniqueEmail('Filter');
    const user = await createUser(server.client, { email, roles: ['filter-role'] });
    const byEmail = await server.client.GET('/v1/users', {
      params: { query: { email: email.toUpperCase() } },
    });
    expect(byEmail.data?.data.map((u) => u.id)).toEqual([user.id]);
    const byRole = await server.client.GET('/v1/users', {
      params: { query: { role: 'filter-role' } },
    });
    expect(byRole.data?.data.map((u) => u.id)).toContain(user.id);
    expect(byRole.data?.data.every((u) => u.roles.includes('filter-role'))).toBe(true);
  });

  it('rejects out-of-range limits and bad cursors with 400', async () => {
    for (const limit of [0, 101]) {
      expect(
        await failure(server.client.GET('/v1/users', { params: { query: { limit } } })),
      ).toMatchObject({ status: 400 });
    }
    const policiesPage = await server.client.GET('/v1/policies', {
      params: { query: { limit: 1 } },
    });
    await createPolicy(server.client, {});
    await createPolicy(server.client, {});
    const foreign = (await server.client.GET('/v1/policies', { params: { query: { limit: 1 } } }))
      .data?.pagination.nextCursor;
    expect(policiesPage).toBeDefined();
    for (const cursor of ['garbage!', 'eyJ4IjoxfQ', foreign as string]) {
      expect(
        await failure(server.client.GET('/v1/users', { params: { query: { cursor } } })),
      ).toMatchObject({
        status: 400,
        code: 'invalid_request',
      });
    }
  });

  it('merges metadata as a JSON merge patch and bumps updatedAt', async () => {
    const user = await createUser(server.client, {
      metadata: { keep: 1, drop: 2, nested: { a: 1, b: 2 } },
    });
    // updatedAt has whole seconds: the PATCH must come in a later second than the create.
    await waitUntilPast('the second after the create', new Date(Date.parse(user.updatedAt) + 1000));
    const { data } = await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: user.id } },
      body: { name: 'Renamed', metadata: { drop: null, nested: { b: null, c: 3 }, added: true } },
    });
    expect(data?.data.metadata).toEqual({ keep: 1, nested: { a: 1, c: 3 }, added: true });
    expect(data?.data.name).toBe('Renamed');
    expect((data?.data.updatedAt ?? '') > user.updatedAt).toBe(true);
    expect(data?.data.createdAt).toBe(user.createdAt);
  });

  it('loses nothing under concurrent metadata merges', async () => {
    const user = await createUser(server.client);
    // As a client would send them: a 503 while a hundred merges wait for the pool on a loaded
    // machine is retried under the same Idempotency-Key; every merge must then be acknowledged.
    const retrying = createSecadminClient({ baseUrl: server.url, apiKey: server.rootKey });
    const merged = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        retrying.PATCH('/v1/users/{id}', {
          params: { path: { id: user.id } },
          headers: { 'Idempotency-Key': `merge-${user.id}-${i}` },
          body: { metadata: { [`k${i}`]: i } },
        }),
      ),
    );
    expect(merged.map(({ response }) => response.status)).toEqual(Array(100).fill(200));
    const { data } = await server.client.GET('/v1/users/{id}', {
      params: { path: { id: user.id } },
    });
    expect(Object.keys(data?.data.metadata ?? {})).toHaveLength(100);
  });

  it('refuses metadata over 16 KiB', async () => {
    const user = await createUser(server.client);
    const big = { blob: 'x'.repeat(17 * 1024) };
    expect(
      await failure(
        server.client.PATCH('/v1/users/{id}', {
          params: { path: { id: user.id } },
          body: { metadata: big },
        }),
      ),
    ).toMatchObject({
      status: 400,
    });
  });

  it('deletes the user, its keys and its principal entries at once; the email can be reused', async () => {
    const user = await createUser(server.client);
    const key = await createKey(server.client, `user:${user.id}`);
    const policy = await createPolicy(server.client, {
      principals: [`user:${user.id}`, 'role:x'],
      actions: ['users:read'],
    });
    const res = await raw(server, `/v1/users/${user.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(
      await failure(server.client.GET('/v1/users/{id}', { params: { path: { id: user.id } } })),
    ).toMatchObject({ status: 404 });
    expect(await failure(server.clientWith(key.secret).GET('/v1/users'))).toMatchObject({
      status: 401,
    });
    const { data } = await server.client.GET('/v1/policies/{id}', {
      params: { path: { id: policy.id } },
    });
    expect(data?.data.principals).toEqual(['role:x']);
    expect(
      await failure(server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } })),
    ).toMatchObject({ status: 404 });
    await createUser(server.client, { email: user.email });
  });

  it('keeps a policy whose only principal was the deleted user: readable, matching nothing, not patchable to none', async () => {
    const user = await createUser(server.client);
    const policy = await createPolicy(server.client, {
      principals: [`user:${user.id}`],
      actions: ['users:read'],
      resources: ['users/*'],
    });
    const check = { principal: `user:${user.id}`, action: 'users:read', resource: 'users/1' };
    const before = await server.client.POST('/v1/policies/simulate', { body: check });
    expect(before.data?.data.allowed).toBe(true);
    const res = await raw(server, `/v1/users/${user.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(204);
    const path = { params: { path: { id: policy.id } } };
    const { data } = await server.client.GET('/v1/policies/{id}', path);
    expect(data?.data.principals).toEqual([]);
    const after = await server.client.POST('/v1/policies/simulate', { body: check });
    expect(after.data?.data).toMatchObject({ allowed: false, matchedPolicies: [] });
    expect(
      await failure(
        server.client.PATCH('/v1/policies/{id}', { ...path, body: { principals: [] } }),
      ),
    ).toMatchObject({ status: 400, details: [{ field: 'body.principals' }] });
    const renamed = await server.client.PATCH('/v1/policies/{id}', {
      ...path,
      body: { name: `${policy.name}-orphan` },
    });
    expect(renamed.data?.data.principals).toEqual([]);
  });
});
