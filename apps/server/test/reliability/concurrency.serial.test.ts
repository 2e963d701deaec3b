import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../helpers/server.js';

describe('concurrent writes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
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

  it('lets ingest go on while an export runs: no batch waits long', async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      event: 'concurrency.export',
      actor: { type: 'service', id: `c${i}` },
      result: 'success' as const,
      timestamp: '2019-09-09T00:00:00.000Z',
    }));
    for (let i = 0; i < 15; i++) await server.client.POST('/v1/logs', { body: { entries } });
    const { data } = await server.client.POST('/v1/logs/export', {
      body: { from: '2019-09-09', to: '2019-09-10', format: 'json' },
    });
    const exportId = data?.data.exportId as string;
    const latencies: number[] = [];
    let state = 'processing';
    for (let i = 0; i < 200 && (state === 'processing' || latencies.length < 10); i++) {
      const started = performance.now();
      await server.client.POST('/v1/logs', { body: { entries: entries.slice(0, 100) } });
      latencies.push(performance.now() - started);
      state =
        (await server.client.GET('/v1/logs/export/{exportId}', { params: { path: { exportId } } }))
          .data?.data.status ?? 'gone';
    }
    expect(state).toBe('completed');
    expect(Math.max(...latencies)).toBeLessThan(2000);
  });
});
