import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyParsing } from '../helpers/body-parsing.js';
import { pacedWork } from '../helpers/paced-work.js';
import { postText, startTestServer, type TestServer } from '../helpers/server.js';

/** About as many keys as fit in a body of the default 1 MiB limit. */
const KEYS = 90_000;
/** The most keys one object may have. */
const MAX_KEYS = 4096;
/** The characters the nesting guard reads between two paces, at most. */
const SLICE_CHARS = 64 * 1024;
const manyKeys = () => Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`k${i}`, 1]));

/**
 * Issue 20: a 1 MiB body of ~90,000 keys held the event loop in parsing and validation,
 * whatever the operation. The nesting guard now counts an object's keys as it reads them, and
 * refuses the body at the key past the limit: the work is bounded by the limit, not by the
 * body (how fast it goes is the bench's row of `/healthz` during hostile requests).
 */
describe('bodies of many keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

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
    'refuses a body of many keys to %s within the slice that holds the key past the limit',
    async (path, body) => {
      expect(body.length).toBeLessThan(1024 * 1024);
      let status = 0;
      const paced = await pacedWork(async () => {
        const parsing = await bodyParsing(async () => {
          const res = await postText(server, path, body, { 'idempotency-key': `many-${path}` });
          await res.arrayBuffer();
          status = res.status;
        });
        // Refused in the guard's first slice, which holds the key past the limit: the rest of
        // the body is never read, and the value that would hold every key is never built.
        expect(body.indexOf(`"k${MAX_KEYS}"`)).toBeLessThan(SLICE_CHARS);
        expect(parsing.scannedTo).toBeLessThanOrEqual(SLICE_CHARS);
        expect(parsing.parsedChars).toBe(0);
        expect(parsing.parsedAtOnce).toBeLessThan(1024);
      });
      expect(status).toBe(400);
      for (const computation of paced)
        expect(computation.turns, computation.site).toBe(computation.paces - 1);
    },
  );
});
