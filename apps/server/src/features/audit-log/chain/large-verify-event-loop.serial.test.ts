import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureLoopDelay } from '../../../../test/helpers/event-loop-delay.js';
import {
  DATABASES,
  json,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';

/** Entries of the largest metadata (16 KiB serialized), ingested in batches under 10 MiB. */
const ENTRIES = 2000;
const BATCH = 500;
const NOTE_CHARS = 16 * 1024 - 64;

/**
 * Issue 20: `POST /v1/logs/verify` read 2,000 chain rows per statement and checked them in one
 * go; over entries of 16 KiB that held the event loop for about a third of a second. Reads are
 * now bounded in bytes and the checks run in slices.
 */
describe.each(DATABASES)('verifying a chain of the largest entries on %s', (database) => {
  let server: TestServer;
  const call = (path: string, body?: unknown) =>
    raw(server, path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    server = await startTestServer(database);
    let lastId = '';
    for (let sent = 0; sent < ENTRIES; sent += BATCH) {
      const entries = Array.from({ length: BATCH }, (_, i) => ({
        event: 'document.uploaded',
        actor: { type: 'user', id: `user_${sent + i}` },
        result: 'success',
        metadata: { note: `${sent + i} ${'x'.repeat(NOTE_CHARS)}`.slice(0, NOTE_CHARS) },
      }));
      const res = await call('/v1/logs', { entries });
      expect(res.status).toBe(201);
      lastId = (await json(res)).data.at(-1).id;
    }
    await waitFor(
      'every entry sealed',
      async () => typeof (await json(await call(`/v1/logs/${lastId}`))).data?.seq === 'number',
      120_000,
    );
  }, 240_000);
  afterAll(() => server?.stop());

  it('verifies the whole chain without holding the event loop', async () => {
    // What the machine's load alone delays the loop by, under small reads.
    const idle = await measureLoopDelay(server, async () => {
      for (let i = 0; i < 20; i++) expect((await call('/v1/logs?limit=1')).status).toBe(200);
    });
    const results: { checkedEntries: number }[] = [];
    const attack = await measureLoopDelay(server, async () => {
      for (let i = 0; i < 2; i++) {
        const res = await call('/v1/logs/verify', {});
        expect(res.status).toBe(200);
        results.push((await json(res)).data);
      }
    });
    const measured = JSON.stringify({ idle, attack, results });
    for (const result of results) expect(result.checkedEntries, measured).toBe(ENTRIES);
    expect(attack.healthRequests, measured).toBeGreaterThan(0);
    // Max against max: the idle run's longest delay is what the loaded machine alone causes.
    expect(attack.loopMaxMs, measured).toBeLessThan(idle.loopMaxMs + 100);
    expect(attack.healthP99Ms, measured).toBeLessThan(idle.healthP99Ms + 100);
  }, 120_000);
});
