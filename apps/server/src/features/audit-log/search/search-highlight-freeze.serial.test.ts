import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureLoopDelay } from '../../../../test/helpers/event-loop-delay.js';
import { json, raw, startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { MAX_QUERY_TERMS } from './query.js';
import { SEARCH_CHUNK_ROWS } from './repository.js';

interface SearchBody {
  data: { highlights: Record<string, string> }[];
}

/** Entries planted, in batches of the most `POST /v1/logs` takes. */
const PLANTED = 100;
const BATCH = 100;
/**
 * Rounds of two concurrent searches: enough event-loop samples that the 99th percentile is not
 * one scheduling hiccup of a loaded machine, while the unfixed code blocks for most of them.
 */
const ROUNDS = 3;
/** Metadata is at most 16 KiB serialized; a `User-Agent` at most 1,024 characters. */
const METADATA_BYTES = 16 * 1024 - 64;
const USER_AGENT_CHARS = 1024;

/**
 * Issue 20, H1: entries full of one word, searched for that word as many times as a query may
 * hold, made highlighting re-tokenize every field once per term and froze the process.
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
  }, 120_000);
  afterAll(() => server?.stop());

  const search = (query: string, limit = 1000) =>
    raw(server, '/v1/logs/search', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, limit }),
    });

  /** ROUNDS of two concurrent searches, each checked by `check`. */
  const rounds = async (query: string, limit: number, check: (body: SearchBody) => void) => {
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        [1, 2].map(async () => {
          const res = await search(query, limit);
          const body = await json(res);
          expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
          check(body);
        }),
      );
    }
  };

  it('answers the most terms over the largest entries without holding the event loop', async () => {
    const query = Array.from({ length: MAX_QUERY_TERMS }, () => word).join(' ');
    // What the machine's load alone delays the loop by, under the same requests for one hit.
    const idle = await measureLoopDelay(server, () =>
      rounds(query, 1, (body) => expect(body.data).toHaveLength(1)),
    );
    const attack = await measureLoopDelay(server, () =>
      rounds(query, 1000, (body) => {
        expect(body.data).toHaveLength(PLANTED);
        expect(body.data[0]?.highlights['metadata.note']).toMatch(
          new RegExp(`^<em>${word}</em> <em>${word}</em>`),
        );
      }),
    );
    const measured = JSON.stringify({ idle, attack });
    expect(attack.healthRequests, measured).toBeGreaterThan(0);
    expect(attack.loopP99Ms, measured).toBeLessThan(idle.loopP99Ms + 100);
    expect(attack.healthMaxMs, measured).toBeLessThan(1000);
  }, 180_000);

  it('refuses a query with more terms than the spec allows, naming the field', async () => {
    const res = await search(Array.from({ length: MAX_QUERY_TERMS + 1 }, () => word).join(' '));
    const body = await json(res);
    expect(res.status).toBe(400);
    expect(body.error.details).toEqual([
      { field: 'body.query', message: expect.stringContaining(`at most ${MAX_QUERY_TERMS} terms`) },
    ]);
  });

  it('reads a page of more hits than one statement reads whole, newest first, once each', async () => {
    const tag = `many${Date.now().toString(36)}`;
    const hits = 2 * SEARCH_CHUNK_ROWS + 7;
    for (let sent = 0; sent < hits; sent += BATCH) {
      const entries = Array.from({ length: Math.min(BATCH, hits - sent) }, () => ({
        event: 'user.login',
        actor: { type: 'user', id: 'many' },
        result: 'success',
        metadata: { tag },
      }));
      await server.client.POST('/v1/logs', { body: { entries } as never });
    }
    const res = await search(tag, 1000);
    const body = await json(res);
    expect(res.status).toBe(200);
    const keys = (body.data as { id: string; timestamp: string }[]).map(
      ({ id, timestamp }) => `${timestamp} ${id}`,
    );
    expect(keys).toHaveLength(hits);
    expect(new Set(keys).size).toBe(hits);
    expect(keys).toEqual([...keys].sort().reverse());
  });
});
