import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { json, raw, startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { PhraseMatcher } from './phrase-matcher.js';
import { MAX_QUERY_TERMS } from './query.js';

interface SearchBody {
  data: { highlights: Record<string, string> }[];
}

/** Entries planted, in batches of the most `POST /v1/logs` takes. */
const PLANTED = 100;
const BATCH = 100;
/** Metadata is at most 16 KiB serialized; a `User-Agent` at most 1,024 characters. */
const METADATA_BYTES = 16 * 1024 - 64;
const USER_AGENT_CHARS = 1024;

/**
 * Issue 20, H1: entries full of one word, searched for that word as many times as a query may
 * hold, made highlighting re-tokenize every field once per term and froze the process. Each
 * field of a hit is now read once, whatever the query's terms: the work is bounded by the page.
 * How fast such a search is answered, and what others meanwhile wait, is the bench's.
 */
describe('search highlighting under attack', () => {
  let server: TestServer;
  // Short enough that a query of one term over the cap still fits in 500 characters.
  const word = 'zebrax';
  const repeated = (chars: number) => `${word} `.repeat(Math.floor(chars / (word.length + 1)));

  beforeAll(async () => {
    server = await startTestServer();
    const entry = {
      event: 'user.login',
      actor: { type: 'user', id: 'attacker' },
      result: 'failure',
      context: { userAgent: repeated(USER_AGENT_CHARS) },
      metadata: { note: repeated(METADATA_BYTES) },
    };
    for (let planted = 0; planted < PLANTED; planted += BATCH) {
      const { response } = await server.client.POST('/v1/logs', {
        body: { entries: Array.from({ length: BATCH }, () => entry) } as never,
      });
      expect(response.status).toBe(201);
    }
    await server.searchable();
  }, 120_000);
  afterAll(() => server?.stop());

  const search = (query: string, limit = 1000, cursor?: string) =>
    raw(server, '/v1/logs/search', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, limit, ...(cursor ? { cursor } : {}) }),
    });

  it('reads each word of the hits once for the most terms over the largest entries', async () => {
    const query = Array.from({ length: MAX_QUERY_TERMS }, () => word).join(' ');
    const push = vi.spyOn(PhraseMatcher.prototype, 'push');
    let wordsRead: number;
    try {
      const res = await search(query);
      const body = (await json(res)) as SearchBody;
      expect(res.status).toBe(200);
      expect(body.data).toHaveLength(PLANTED);
      expect(body.data[0]?.highlights['metadata.note']).toMatch(
        new RegExp(`^<em>${word}</em> <em>${word}</em>`),
      );
      wordsRead = push.mock.calls.length;
    } finally {
      push.mockRestore();
    }
    // At most every word of every field once; the other fields of an entry hold a few words.
    const wordsPerEntry =
      repeated(METADATA_BYTES).split(' ').length + repeated(USER_AGENT_CHARS).split(' ').length;
    expect(wordsRead).toBeGreaterThan(0);
    expect(wordsRead).toBeLessThanOrEqual(PLANTED * (wordsPerEntry + 16));
  });

  it('refuses a query with more terms than the spec allows, naming the field', async () => {
    const res = await search(Array.from({ length: MAX_QUERY_TERMS + 1 }, () => word).join(' '));
    const body = await json(res);
    expect(res.status).toBe(400);
    expect(body.error.details).toEqual([
      { field: 'body.query', message: expect.stringContaining(`at most ${MAX_QUERY_TERMS} terms`) },
    ]);
  });

  it('reads a page of hits newest first, once each, and pages through them by cursor alike', async () => {
    const tag = `many${Date.now().toString(36)}`;
    // Batches share their receipt time: ties are ordered by id, in the page and across pages.
    const hits = 2 * BATCH + 7;
    for (let sent = 0; sent < hits; sent += BATCH) {
      const entries = Array.from({ length: Math.min(BATCH, hits - sent) }, () => ({
        event: 'user.login',
        actor: { type: 'user', id: 'many' },
        result: 'success',
        metadata: { tag },
      }));
      await server.client.POST('/v1/logs', { body: { entries } as never });
    }
    await server.searchable();
    const keysOf = (body: { data: { id: string; timestamp: string }[] }) =>
      body.data.map(({ id, timestamp }) => `${timestamp} ${id}`);
    const res = await search(tag, 1000);
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.meta.totalHits).toBe(hits);
    const keys = keysOf(body);
    expect(keys).toHaveLength(hits);
    expect(new Set(keys).size).toBe(hits);
    expect(keys).toEqual([...keys].sort().reverse());

    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await json(await search(tag, 40, cursor));
      paged.push(...keysOf(page));
      cursor = page.pagination.nextCursor ?? undefined;
    } while (cursor);
    expect(paged).toEqual(keys);
  });
});
