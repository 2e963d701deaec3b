import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyParsing } from '../helpers/body-parsing.js';
import { pacedWork } from '../helpers/paced-work.js';
import { raw, startTestServer, type TestServer } from '../helpers/server.js';

/** Brackets that fill an ingest body (10 MiB) just under its limit. */
const LEVELS = 5_000_000;

/**
 * Issue 20: a body of millions of nested `[` was built in full by the parser, for seconds that
 * held the event loop, before its depth was checked. Its depth is now checked as it is read, so
 * the work is bounded by the limit, not by the body: how fast it goes is the bench's row of
 * `/healthz` during hostile requests.
 */
describe('a body nested millions of levels deep', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('is refused as too deep in its first slice, with nothing built', async () => {
    const body = `{"entries":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;
    expect(body.length).toBeLessThan(10 * 1024 * 1024);
    let answer: { status: number; text: string } | undefined;
    let parsing: Awaited<ReturnType<typeof bodyParsing>> | undefined;
    const paced = await pacedWork(async () => {
      parsing = await bodyParsing(async () => {
        const res = await raw(server, '/v1/logs', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${server.rootKey}`,
            'content-type': 'application/json',
          },
          body,
        });
        answer = { status: res.status, text: await res.text() };
      });
    });
    expect(answer?.status).toBe(400);
    const { error } = JSON.parse(answer?.text ?? '{}');
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([
      {
        field: `body.entries${'[0]'.repeat(31)}`,
        message: 'must not be nested more than 32 levels deep',
      },
    ]);
    // Refused in the guard's first slice of the body, before the parser builds anything.
    expect(parsing).toMatchObject({ parsedChars: 0 });
    expect(parsing?.scannedTo).toBeLessThanOrEqual(64 * 1024);
    expect(parsing?.parsedAtOnce).toBeLessThan(1024);
    for (const computation of paced)
      expect(computation.turns, computation.site).toBe(computation.paces - 1);
  });
});
