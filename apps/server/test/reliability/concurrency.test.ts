import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, raw, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DATABASES)('concurrent writes on %s', (database) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(database);
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: unknown) =>
    raw(server, path, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.status);

  it('creates exactly one user from 20 concurrent creates of one email in different cases', async () => {
    const email = `race.${Date.now()}@example.com`;
    const variants = Array.from({ length: 20 }, (_, i) =>
      [...email].map((c, j) => ((i >> (j % 5)) & 1 ? c.toUpperCase() : c)).join(''),
    );
    const statuses = await Promise.all(variants.map((e) => post('/v1/users', { email: e })));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });

  it('creates exactly one policy from 20 concurrent creates of one name', async () => {
    const name = `race-${Date.now()}`;
    const body = {
      name,
      effect: 'allow',
      principals: ['service:x'],
      actions: ['a:b'],
      resources: ['r'],
    };
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => post('/v1/policies', body)),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });
});
