import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Pacer } from '../../src/lib/pacer.js';
import { raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitForExport } from '../helpers/wait.js';

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

  it('lets ingest go on while an export runs: batches are stored while it is held mid-file', async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      event: 'concurrency.export',
      actor: { type: 'service', id: `c${i}` },
      result: 'success' as const,
      timestamp: '2019-09-09T00:00:00.000Z',
    }));
    for (let i = 0; i < 15; i++) await server.client.POST('/v1/logs', { body: { entries } });
    // The export worker stops at its first pace, in the middle of its file, until released.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached = () => {};
    const held = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const pace = Pacer.prototype.pace;
    const spy = vi.spyOn(Pacer.prototype, 'pace').mockImplementation(async function (this: Pacer) {
      if (new Error().stack?.includes('exports/worker.ts')) {
        reached();
        await released;
      }
      return pace.call(this);
    });
    try {
      const { data } = await server.client.POST('/v1/logs/export', {
        body: { from: '2019-09-09', to: '2019-09-10', format: 'json' },
      });
      const exportId = data?.data.exportId as string;
      await held;
      // A batch waiting on what the export holds would wait for good: the test's timeout.
      for (let i = 0; i < 3; i++) {
        const { response } = await server.client.POST('/v1/logs', {
          body: { entries: entries.slice(0, 100) },
        });
        expect(response.status).toBe(201);
      }
      const { data: during } = await server.client.GET('/v1/logs/export/{exportId}', {
        params: { path: { exportId } },
      });
      expect(during?.data.status).toBe('processing');
      release();
      expect((await waitForExport(server.client, exportId)).status).toBe('completed');
    } finally {
      release();
      spy.mockRestore();
    }
  });
});
