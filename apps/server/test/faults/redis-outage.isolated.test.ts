import { startRedis } from '@secadmin/test-infra';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { capturingLogger, traffic } from './traffic.js';

const WARN = 40;

function listUsers(server: TestServer): Promise<Response> {
  return raw(server, '/v1/users?limit=1', {
    headers: { authorization: `Bearer ${server.rootKey}` },
  });
}

async function readiness(server: TestServer) {
  const res = await raw(server, '/readyz');
  return { status: res.status, body: await json(res) };
}

/** Every rate-limit counter Redis holds, added up (a window's roll-over moves hits to a new key). */
async function countedInRedis(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys('secadmin:rl:*');
    const values = keys.length ? await redis.mget(...keys) : [];
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  } finally {
    redis.disconnect();
  }
}

// Each test starts servers of its own and drives an outage: minutes on a loaded 2-core machine.
describe('Redis unreachable', { timeout: 120_000 }, () => {
  it('open mode: requests keep succeeding, counted in memory; one warning, one recovery line; back to Redis', async () => {
    const redis = await startRedis();
    const log = capturingLogger();
    const server = await startTestServer(
      { redisUrl: redis.url, rateLimitOnStoreError: 'open' },
      { logger: log.logger },
    );
    try {
      expect(await readiness(server)).toEqual({
        status: 200,
        body: {
          status: 'ok',
          checks: expect.objectContaining({ database: 'ok', rateLimitStore: 'ok' }),
        },
      });
      const load = traffic(() => listUsers(server));
      await waitFor('traffic', async () => load.samples.length >= 20);
      await redis.stop();
      const atStop = load.samples.length;
      await waitFor('requests during the outage', async () => load.samples.length >= atStop + 50);
      // Only the rate-limit store's warning: start-up may warn too (a generated signing key).
      const about = (line: Record<string, unknown>) =>
        String(line.msg).includes('rate-limit store');
      const warned = () => log.lines().some((line) => line.level === WARN && about(line));
      await waitFor('the outage warning', async () => warned());
      expect(await readiness(server)).toEqual({
        status: 200,
        body: {
          status: 'degraded',
          checks: expect.objectContaining({ database: 'ok', rateLimitStore: 'degraded' }),
        },
      });
      await redis.start();
      await waitFor('readiness ok', async () => (await readiness(server)).body.status === 'ok');
      const samples = await load.stop();

      // Answered while Redis was down (they were counted before it came back): none waited for it.
      expect(samples.filter((s) => s.status !== 200)).toEqual([]);
      const lines = log.lines().filter(about);
      expect(
        lines.filter((line) => line.level === WARN),
        JSON.stringify(lines),
      ).toHaveLength(1);
      expect(lines.filter((line) => String(line.msg).includes('answers again'))).toHaveLength(1);

      // Back to shared counting: each request now adds one to Redis's counters.
      const before = await countedInRedis(redis.url);
      for (let i = 0; i < 3; i++) expect((await listUsers(server)).status).toBe(200);
      expect(await countedInRedis(redis.url)).toBe(before + 3);
    } finally {
      await server.stop();
      await redis.remove();
    }
  });

  it('closed mode: every /v1 request gets 503 unavailable with Retry-After: 1 while Redis is down; recovers by itself', async () => {
    const redis = await startRedis();
    const server = await startTestServer({
      redisUrl: redis.url,
      rateLimitOnStoreError: 'closed',
    });
    try {
      expect((await listUsers(server)).status).toBe(200);
      await redis.stop();
      // Each answered before Redis comes back: a request waiting for it would wait for good.
      for (let i = 0; i < 5; i++) {
        const res = await listUsers(server);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(await json(res)).toEqual({
          error: { code: 'unavailable', message: expect.any(String) },
          meta: { requestId: res.headers.get('x-request-id') },
        });
      }
      const unauthenticated = await raw(server, '/v1/users');
      expect(unauthenticated.status).toBe(503);
      expect((await readiness(server)).body).toEqual({
        status: 'degraded',
        checks: expect.objectContaining({ database: 'ok', rateLimitStore: 'degraded' }),
      });
      await redis.start();
      await waitFor('a 200 again', async () => (await listUsers(server)).status === 200);
    } finally {
      await server.stop();
      await redis.remove();
    }
  });
});
