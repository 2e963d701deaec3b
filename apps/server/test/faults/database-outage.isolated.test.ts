import { startPostgres } from '@secadmin/test-infra';
import { describe, expect, it } from 'vitest';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { capturingLogger, traffic } from './traffic.js';

function api(server: TestServer, path: string, init: RequestInit = {}): Promise<Response> {
  return raw(server, path, {
    ...init,
    headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
  });
}

// Each test starts a PostgreSQL and a server of its own: minutes on a loaded 2-core machine.
describe('PostgreSQL unreachable', { timeout: 120_000 }, () => {
  it('answers 503 with Retry-After: 1 (never 500, never a hang), readyz 503, and recovers without a restart', async () => {
    const postgres = await startPostgres();
    const log = capturingLogger();
    const server = await startTestServer({ databaseUrl: postgres.url }, { logger: log.logger });
    try {
      const acknowledged: string[] = [];
      let n = 0;
      const load = traffic(async () => {
        const res = await api(server, '/v1/users', {
          method: 'POST',
          body: JSON.stringify({ email: `outage-${n++}@example.com`, name: 'Outage' }),
        });
        if (res.status === 201) acknowledged.push((await json(res.clone())).data.id);
        return res;
      });
      const reads = traffic(() => api(server, '/v1/users?limit=5'), { workers: 1 });
      await waitFor('writes', async () => acknowledged.length >= 10);
      await postgres.stop();
      const unavailable = () =>
        [...load.samples, ...reads.samples].filter((s) => s.status === 503).length;
      await waitFor('503s during the outage', async () => unavailable() >= 20);
      const ready = await raw(server, '/readyz');
      expect(ready.status).toBe(503);
      expect(await json(ready)).toEqual({
        status: 'unavailable',
        checks: expect.objectContaining({ database: 'unavailable', rateLimitStore: 'memory' }),
      });
      await postgres.start();
      await waitFor('readiness again', async () => (await raw(server, '/readyz')).status === 200);
      const writtenAfter = acknowledged.length;
      await waitFor('writes again', async () => acknowledged.length >= writtenAfter + 5);
      const samples = [...(await load.stop()), ...(await reads.stop())];

      // An unmapped error shape shows here with its details, before it shows as a 500 below.
      expect(log.lines().filter((line) => line.msg === 'unexpected error')).toEqual([]);
      const statuses = new Set(samples.map((s) => s.status));
      expect([...statuses].sort()).toEqual([200, 201, 503]);
      for (const sample of samples.filter((s) => s.status === 503))
        expect(sample.retryAfter).toBe('1');
      for (const id of acknowledged)
        expect((await api(server, `/v1/users/${id}`)).status).toBe(200);
    } finally {
      await server.stop();
      await postgres.remove();
    }
  });

  it('at start, waits for PostgreSQL up to SECADMIN_DB_CONNECT_TIMEOUT_S', async () => {
    const postgres = await startPostgres();
    try {
      await postgres.stop();
      const log = capturingLogger();
      const starting = startTestServer(
        { databaseUrl: postgres.url, dbConnectTimeoutSeconds: 60 },
        { logger: log.logger },
      );
      await waitFor('a first attempt to connect', async () =>
        log.lines().some((line) => line.msg === 'PostgreSQL is not reachable yet; retrying'),
      );
      await postgres.start();
      const server = await starting;
      try {
        expect((await raw(server, '/readyz')).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      await postgres.remove();
    }
  });

  it('gives up after SECADMIN_DB_CONNECT_TIMEOUT_S with a clear message and no credentials', async () => {
    const postgres = await startPostgres();
    try {
      await postgres.stop();
      const url = new URL(postgres.url);
      url.password = 'sk_not_to_be_shown';
      await expect(
        startTestServer({ databaseUrl: url.toString(), dbConnectTimeoutSeconds: 1 }),
      ).rejects.toThrow(
        new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${url.port}/postgres did not answer within 1 s`),
      );
    } finally {
      await postgres.remove();
    }
  });
});
