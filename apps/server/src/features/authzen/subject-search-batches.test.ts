import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createUser } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

// biome-ignore lint/suspicious/noExplicitAny: responses are inspected as JSON
type Json = any;

describe('AuthZEN subject search over batches of candidates', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const call = async (secret: string, path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  async function allPages(secret: string, search: Json, limit?: number) {
    const results: Json[] = [];
    let token: string | undefined;
    for (let i = 0; i < 200; i++) {
      const res = await call(secret, '/access/v1/search/subject', {
        ...search,
        ...(limit || token
          ? { page: { ...(limit ? { limit } : {}), ...(token ? { token } : {}) } }
          : {}),
      });
      expect(res.status, res.text).toBe(200);
      results.push(...res.body.results);
      token = res.body.page.next_token;
      if (!token) break;
    }
    return results.map((r: Json) => r.id as string);
  }

  it('offers stored users, wherever they fall among the batches, only to a key that may list users', async () => {
    const tag = `batches-${Date.now()}`;
    const users = await Promise.all(Array.from({ length: 5 }, () => createUser(server.client)));
    const stored = users.map((u) => u.id as string);
    // Look-alikes of stored ids, as literals (principal ids have a narrow charset).
    const hostile = ['NULL', 'null', (stored[1] as string).toUpperCase(), `${stored[2]}x`];
    // Many fillers so that the stored ids fall in different batches of 100.
    const fillers = Array.from({ length: 230 }, (_, i) => `f${String(i).padStart(3, '0')}`);
    const all = [...fillers.slice(0, 100), ...stored, ...hostile, ...fillers.slice(100)];
    const policyIds: string[] = [];
    for (let i = 0; i < all.length; i += 90) {
      const created = await call(server.rootKey, '/v1/policies', {
        name: `batches-${tag}-${i}`,
        effect: 'allow',
        principals: all.slice(i, i + 90).map((id) => `user:${id}`),
        actions: ['escort'],
        resources: ['vault/v1'],
      });
      expect(created.status, created.text).toBe(201);
      policyIds.push(created.body.data.id);
    }
    const r = await call(server.rootKey, '/v1/policies', {
      name: `batches-reader-${tag}`,
      effect: 'allow',
      principals: [`service:batches-reader-${tag}`],
      actions: ['policies:simulate', 'policies:read'],
      resources: ['policies', ...policyIds.map((id) => `policies/${id}`)],
    });
    expect(r.status, r.text).toBe(201);
    const reader = await createKey(server.client, `service:batches-reader-${tag}`, {
      plan: 'enterprise',
      rateLimitPerMinute: 100000,
    });
    const search = {
      subject: { type: 'user' },
      action: { name: 'escort' },
      resource: { type: 'vault', id: 'v1' },
    };
    const expected = [...hostile, ...fillers].sort();
    for (const limit of [undefined, 7, 1000]) {
      const seen = await allPages(reader.secret, search, limit);
      for (const id of stored) expect(seen, `limit ${limit}`).not.toContain(id);
      expect([...seen].sort(), `limit ${limit}`).toEqual(expected);
    }
    // The root key (may list users) sees them all, stored ones once each.
    const root = await allPages(server.rootKey, search, 13);
    const counts = new Map<string, number>();
    for (const id of root) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of stored) expect(counts.get(id), id).toBe(1);
    for (const id of expected) expect(counts.get(id), id).toBe(1);

    // A key that may list users but read no policy: stored users only, no literals.
    await call(server.rootKey, '/v1/policies', {
      name: `batches-lister-${tag}`,
      effect: 'allow',
      principals: [`service:batches-lister-${tag}`],
      actions: ['policies:simulate', 'users:list'],
      resources: ['policies', 'users'],
    });
    const lister = await createKey(server.client, `service:batches-lister-${tag}`, {
      plan: 'enterprise',
      rateLimitPerMinute: 100000,
    });
    const listed = await allPages(lister.secret, search, 4);
    for (const id of stored) expect(listed).toContain(id);
    for (const id of expected) expect(listed).not.toContain(id);
  });
});
