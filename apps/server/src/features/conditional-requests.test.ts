import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, createUser, uniqueEmail, uniqueName } from '../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../test/helpers/server.js';

interface Resource {
  path: string;
  create: () => unknown;
  patch: (n: number) => unknown;
}

const RESOURCES: Record<'users' | 'policies', Resource> = {
  users: {
    path: '/v1/users',
    create: () => ({ email: uniqueEmail('etag'), name: 'Tag' }),
    patch: (n) => ({ name: `Tag ${n}` }),
  },
  policies: {
    path: '/v1/policies',
    create: () => ({
      name: uniqueName('etag'),
      effect: 'allow',
      principals: ['service:etag'],
      actions: ['etag:read'],
      resources: ['etag'],
    }),
    patch: (n) => ({ description: `version ${n}` }),
  },
};

describe('conditional requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const send = (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) =>
    raw(server, path, {
      method,
      headers: {
        authorization: `Bearer ${server.rootKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  describe.each(Object.entries(RESOURCES))('%s', (_, resource) => {
    const create = async () => {
      const res = await send('POST', resource.path, {}, resource.create());
      expect(res.status).toBe(201);
      const { data } = await json(res);
      return { url: `${resource.path}/${data.id}`, etag: res.headers.get('etag') as string, data };
    };

    it('returns the same strong ETag from create, GET and PATCH, a new one per change', async () => {
      const created = await create();
      expect(created.etag).toMatch(/^"[^"]+"$/);
      const got = await send('GET', created.url);
      expect(got.headers.get('etag')).toBe(created.etag);
      const patched = await send('PATCH', created.url, {}, resource.patch(1));
      expect(patched.status).toBe(200);
      const patchedTag = patched.headers.get('etag');
      expect(patchedTag).not.toBe(created.etag);
      expect((await send('GET', created.url)).headers.get('etag')).toBe(patchedTag);
    });

    it('gives different tags to two changes within one second', async () => {
      const created = await create();
      // Two PATCHes in the same second (updatedAt has whole seconds): tried until they are.
      for (let n = 1; n <= 10; n += 2) {
        const first = await send('PATCH', created.url, {}, resource.patch(n));
        const second = await send('PATCH', created.url, {}, resource.patch(n + 1));
        const [a, b] = [await json(first), await json(second)];
        if (a.data.updatedAt !== b.data.updatedAt) continue;
        expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
        return;
      }
      throw new Error('no two PATCHes landed in the same second');
    });

    it('answers 304 with no body to If-None-Match holding the current tag', async () => {
      const created = await create();
      const notModified = await send('GET', created.url, { 'if-none-match': created.etag });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('etag')).toBe(created.etag);
      expect(await notModified.text()).toBe('');
      const weak = await send('GET', created.url, { 'if-none-match': `"x", W/${created.etag}` });
      expect(weak.status).toBe(304);
      await send('PATCH', created.url, {}, resource.patch(1));
      const changed = await send('GET', created.url, { 'if-none-match': created.etag });
      expect(changed.status).toBe(200);
    });

    it('refuses a PATCH or DELETE whose If-Match does not match: 412, nothing changed', async () => {
      const created = await create();
      const stale = created.etag;
      const current = (await send('PATCH', created.url, {}, resource.patch(1))).headers.get(
        'etag',
      ) as string;
      const before = await json(await send('GET', created.url));

      const patch = await send('PATCH', created.url, { 'if-match': stale }, resource.patch(2));
      expect(patch.status).toBe(412);
      expect((await json(patch)).error.code).toBe('precondition_failed');
      const weak = await send(
        'PATCH',
        created.url,
        { 'if-match': `W/${current}` },
        resource.patch(2),
      );
      expect(weak.status).toBe(412);
      const remove = await send('DELETE', created.url, { 'if-match': stale });
      expect(remove.status).toBe(412);

      const after = await send('GET', created.url);
      expect(after.headers.get('etag')).toBe(current);
      expect((await json(after)).data).toEqual(before.data);

      const matching = await send(
        'PATCH',
        created.url,
        { 'if-match': `"x", ${current}` },
        resource.patch(3),
      );
      expect(matching.status).toBe(200);
      expect((await send('DELETE', created.url, { 'if-match': '*' })).status).toBe(204);
    });

    it('lets exactly one of two concurrent PATCHes with the same If-Match through', async () => {
      const created = await create();
      const results = await Promise.all(
        [1, 2].map((n) =>
          send('PATCH', created.url, { 'if-match': created.etag }, resource.patch(n)),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    });
  });

  it("changes a policy's tag when deleting a user removes it from the policy's principals", async () => {
    const user = await createUser(server.client);
    const policy = await createPolicy(server.client, {
      principals: [`user:${user.id}`, 'service:x'],
    });
    const before = (await send('GET', `/v1/policies/${policy.id}`)).headers.get('etag');
    expect((await send('DELETE', `/v1/users/${user.id}`)).status).toBe(204);
    const after = await send('GET', `/v1/policies/${policy.id}`);
    expect((await json(after)).data.principals).toEqual(['service:x']);
    expect(after.headers.get('etag')).not.toBe(before);
  });
});
