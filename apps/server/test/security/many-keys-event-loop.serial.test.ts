import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureLoopDelay } from '../helpers/event-loop-delay.js';
import { postText, startTestServer, type TestServer } from '../helpers/server.js';

/** About as many keys as fit in a body of the default 1 MiB limit. */
const KEYS = 90_000;
const manyKeys = () => Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, 1]));

/**
 * Issue 20: a 1 MiB body of ~90,000 keys held the event loop in parsing and validation,
 * whatever the operation. Parsing, the strict-input walk and the fingerprint now run in slices.
 * The body is refused before storage plays a part, so one database is enough.
 */
describe('bodies of many keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    postText(server, path, body, headers);

  const bodies: [string, string][] = [
    ['/v1/policies', JSON.stringify({ name: 'p', effect: 'allow', ...manyKeys() })],
    ['/v1/logs/search', JSON.stringify({ query: 'x', ...manyKeys() })],
    [
      '/v1/logs',
      JSON.stringify({
        entries: [
          { event: 'a.b', actor: { type: 'user' }, result: 'success', metadata: manyKeys() },
        ],
      }),
    ],
  ];

  it.each(bodies)(
    'refuses a body of many keys to %s without holding the event loop',
    async (path, body) => {
      expect(body.length).toBeLessThan(1024 * 1024);
      const idle = await measureLoopDelay(server, async () => {
        for (let i = 0; i < 10; i++) expect((await post(path, '{}')).status).toBe(400);
      });
      // Warm: what is measured is the work, not the first compilation of its code.
      await (await post(path, body)).arrayBuffer();
      const statuses: number[] = [];
      const attack = await measureLoopDelay(server, async () => {
        for (let i = 0; i < 3; i++) {
          const res = await post(path, body, { 'idempotency-key': `many-${i}` });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
      });
      const measured = JSON.stringify({ idle, attack });
      expect(statuses, measured).toEqual([400, 400, 400]);
      // Max against max: the idle run's longest delay is what the loaded machine alone causes.
      expect(attack.loopMaxMs, measured).toBeLessThan(idle.loopMaxMs + 100);
      expect(attack.healthP99Ms, measured).toBeLessThan(idle.healthP99Ms + 100);
    },
    60_000,
  );
});
