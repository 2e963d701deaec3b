import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pacedAt, pacedWork } from '../../../../test/helpers/paced-work.js';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';

/** The most entries one ingest takes, and a body just under its 10 MiB limit. */
const ENTRIES = 1000;
const BODY_BYTES = 10 * 1024 * 1024 - 64 * 1024;

/** `ENTRIES` entries whose metadata fills the body up to about `BODY_BYTES`. */
function largeIngest(tag: string): string {
  const noteChars = Math.floor(BODY_BYTES / ENTRIES) - 200;
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    event: 'document.uploaded',
    actor: { type: 'user', id: `user_${i}` },
    result: 'success',
    metadata: { tag, note: `${i} ${'lorem ipsum '.repeat(noteChars / 12)}`.slice(0, noteChars) },
  }));
  const body = JSON.stringify({ entries });
  expect(body.length).toBeLessThan(10 * 1024 * 1024);
  return body;
}

/**
 * Issue 20: one ingest of the largest body held the event loop for seconds (parsing, the
 * strict-input walk, validation, hashing and one huge insert, all in one go). It now runs in
 * paced pieces, the event loop turning at each pace, in one transaction still. The ingest's
 * rate, and what `/healthz` answers in meanwhile, are the bench's.
 */
describe('a 10 MiB ingest', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const ingest = (body: string, headers: Record<string, string> = {}) =>
    postText(server, '/v1/logs', body, headers);

  it('stores every entry in one request, parsing and checking it in paced slices', async () => {
    const tag = `big${Date.now().toString(36)}`;
    const body = largeIngest(tag);
    let status = 0;
    let acks: unknown[] = [];
    const paced = await pacedWork(async () => {
      const res = await ingest(body, { 'idempotency-key': tag });
      status = res.status;
      acks = (await json(res)).data;
    });
    expect(status).toBe(201);
    expect(acks).toHaveLength(ENTRIES);
    // The text is parsed a slice at a time (at least one pace per 64 KiB of it), and its values
    // are walked for what no field may hold, pacing as they go.
    const parsing = pacedAt(paced, 'lib/parse-json-in-slices.ts');
    expect(parsing).toHaveLength(1);
    expect(parsing[0]?.paces).toBeGreaterThanOrEqual(body.length / (64 * 1024));
    expect(pacedAt(paced, 'http/body.ts').length).toBeGreaterThan(0);
    for (const computation of paced)
      expect(computation.turns, computation.site).toBe(computation.paces - 1);

    await server.searchable();
    const listed = await json(
      await raw(server, `/v1/logs/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: tag, limit: 1 }),
      }),
    );
    expect(listed.data).toHaveLength(1);
  });
});
