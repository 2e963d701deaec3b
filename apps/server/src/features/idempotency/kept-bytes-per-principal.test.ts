import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy } from '../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';

/** Small enough that a few ingests reach it. */
const BOUND = 2048;

/**
 * Issue 20, L-e: the bound on bytes kept for Idempotency-Key replays was per API key, so a
 * principal that mints itself more keys got a fresh bound with each. It is per principal.
 */
describe('the bound on kept responses', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ idempotencyMaxKeptBytes: BOUND });
    await createPolicy(server.client, {
      principals: ['service:ingester'],
      actions: ['logs:write'],
      resources: ['logs'],
    });
  });
  afterAll(() => server?.stop());

  let sent = 0;
  const ingest = (secret: string) =>
    raw(server, '/v1/logs', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'idempotency-key': `kept-${sent++}`,
      },
      body: JSON.stringify({
        entries: Array.from({ length: 20 }, () => ({
          event: 'kept.bound',
          actor: { type: 'system' },
          result: 'success',
        })),
      }),
    });

  it('is shared by every key of a principal: a new key does not get a fresh one', async () => {
    const first = (await createKey(server.client, 'service:ingester')).secret;
    let refused: Response | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const res = await ingest(first);
      if (res.status !== 201) refused = res;
    }
    expect(refused?.status).toBe(429);
    const second = (await createKey(server.client, 'service:ingester')).secret;
    const res = await ingest(second);
    expect(res.status).toBe(429);
    expect((await json(res)).error.code).toBe('rate_limited');
    // Another principal's keys have a bound of their own.
    const root = await ingest(server.rootKey);
    expect(root.status).toBe(201);
  });

  it("frees a revoked key's room: what it kept can never be replayed", async () => {
    await createPolicy(server.client, {
      principals: ['service:revoked'],
      actions: ['logs:write'],
      resources: ['logs'],
    });
    const filler = await createKey(server.client, 'service:revoked');
    const sibling = (await createKey(server.client, 'service:revoked')).secret;
    let status = 201;
    for (let i = 0; i < 100 && status === 201; i++) status = (await ingest(filler.secret)).status;
    expect(status).toBe(429);
    expect((await ingest(sibling)).status).toBe(429);
    await server.client.DELETE('/v1/api-keys/{id}', { params: { path: { id: filler.id } } });
    expect((await ingest(sibling)).status).toBe(201);
  });
});
