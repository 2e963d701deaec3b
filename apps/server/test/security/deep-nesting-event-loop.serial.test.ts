import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureLoopDelay } from '../helpers/event-loop-delay.js';
import { raw, startTestServer, type TestServer } from '../helpers/server.js';

/** Brackets that fill an ingest body (10 MiB) just under its limit. */
const LEVELS = 5_000_000;

/**
 * Issue 20: a body of millions of nested `[` was built in full by the parser, for seconds that
 * held the event loop, before its depth was checked. Its depth is now checked as it is read.
 * The body is refused before storage plays a part, so one database is enough.
 */
describe('a body nested millions of levels deep', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: string) =>
    raw(server, path, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body,
    });

  it('is refused as too deep without holding the event loop', async () => {
    const body = `{"entries":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    const idle = await measureLoopDelay(server, async () => {
      for (let i = 0; i < 10; i++) expect((await post('/v1/logs', '{}')).status).toBe(400);
    });
    // Warm: what is measured is the work, not the first compilation of its code.
    await (await post('/v1/logs', body)).arrayBuffer();
    let answer: { status: number; text: string } | undefined;
    const attack = await measureLoopDelay(server, async () => {
      const res = await post('/v1/logs', body);
      answer = { status: res.status, text: await res.text() };
    });
    const measured = JSON.stringify({ idle, attack });
    expect(answer?.status, measured).toBe(400);
    const { error } = JSON.parse(answer?.text ?? '{}');
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([
      {
        field: `body.entries${'[0]'.repeat(31)}`,
        message: 'must not be nested more than 32 levels deep',
      },
    ]);
    // Max against max: the idle run's longest delay is what the loaded machine alone causes.
    expect(attack.loopMaxMs, measured).toBeLessThan(idle.loopMaxMs + 100);
    expect(attack.healthP99Ms, measured).toBeLessThan(idle.healthP99Ms + 100);
  }, 120_000);
});
