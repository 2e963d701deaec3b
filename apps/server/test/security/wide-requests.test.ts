import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PhraseMatcher } from '../../src/features/audit-log/search/phrase-matcher.js';
import { bodyParsing } from '../helpers/body-parsing.js';
import { type PacedComputation, pacedAt, pacedWork } from '../helpers/paced-work.js';
import { json, postText, raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Entries of 850 metadata keys (under the 16 KiB bound; each key also gets a digest and a salt,
 * so an entry weighs about 125 KiB stored). The attack sent 1,000; 200 show the same stalls
 * (each came from one read, hash or statement of many such entries) in a fifth of the time.
 */
const ENTRIES = 200;
const KEYS = 850;
/** The most terms a search query may have: the first metadata keys of every wide entry. */
const TERMS = 64;
const key = (i: number) => `k${String(i).padStart(3, '0')}`;

function wideIngest(): string {
  const metadata = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [key(i), i]));
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    event: 'document.uploaded',
    actor: { type: 'user', id: `user_${i}` },
    result: 'success',
    metadata,
  }));
  expect(JSON.stringify(metadata).length).toBeLessThan(16 * 1024);
  const body = JSON.stringify({ entries });
  expect(body.length).toBeLessThan(10 * 1024 * 1024);
  return body;
}

/** About as many keys as fit in a body of the default 1 MiB limit. */
const manyKeys = () => Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]));

/**
 * Issue 20: after its findings were fixed, an outside attack still found four request shapes
 * that held the event loop past 100 ms: an ingest of entries of many metadata keys (and their
 * sealing), a search of the most terms over them, a verify of them, and a body of 90,000 keys.
 * Each now does work bounded per step, pacing between steps, the event loop turning at each
 * pace (how fast they go, and what others meanwhile wait, are the bench's rows). The tests run
 * in order on one server: the ingest's entries are what the search and verify read.
 */
describe('requests of the widest shapes', () => {
  let server: TestServer;
  let lastId = '';
  const call = (path: string, body?: unknown) =>
    raw(server, path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  /** Every computation that paced let the event loop turn at each of its paces. */
  const turnedAtEveryPace = (paced: PacedComputation[]) => {
    for (const computation of paced)
      expect(computation.turns, computation.site).toBe(computation.paces - 1);
  };
  const pacesAt = (paced: PacedComputation[], site: string) =>
    pacedAt(paced, site).reduce((sum, computation) => sum + computation.paces, 0);

  it('ingests and seals entries of 850 metadata keys, an entry at a time', async () => {
    const body = wideIngest();
    const paced = await pacedWork(async () => {
      const res = await postText(server, '/v1/logs', body);
      const answer = await json(res);
      expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(201);
      expect(answer.data).toHaveLength(ENTRIES);
      lastId = answer.data.at(-1).id;
      await waitFor(
        'every entry sealed',
        async () => typeof (await json(await call(`/v1/logs/${lastId}`))).data?.seq === 'number',
        60_000,
      );
    });
    // The strict-input walk paces every so many keys; the sealer before each entry it hashes.
    expect(pacesAt(paced, 'http/body.ts')).toBeGreaterThanOrEqual((ENTRIES * KEYS) / 1024);
    expect(pacesAt(paced, 'features/audit-log/chain/sealer.ts')).toBeGreaterThanOrEqual(ENTRIES);
    turnedAtEveryPace(paced);
  });

  it('searches the most terms over them for a page of up to 1,000, reading each field once', async () => {
    const query = Array.from({ length: TERMS }, (_, i) => key(i)).join(' ');
    await server.searchable();
    const push = vi.spyOn(PhraseMatcher.prototype, 'push');
    try {
      const res = await call('/v1/logs/search', { query, limit: 1000 });
      const answer = await json(res);
      expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(200);
      expect(answer.data).toHaveLength(ENTRIES);
      // A word per metadata value and a few for the other fields: once each, whatever the terms.
      expect(push.mock.calls.length).toBeLessThanOrEqual(ENTRIES * (KEYS + 16));
    } finally {
      push.mockRestore();
    }
  });

  it('verifies them, pacing at each entry', async () => {
    const paced = await pacedWork(async () => {
      const res = await call('/v1/logs/verify', {});
      const answer = await json(res);
      expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(200);
      expect(answer.data.valid).toBe(true);
    });
    expect(pacesAt(paced, 'features/audit-log/chain/service.ts')).toBeGreaterThanOrEqual(ENTRIES);
    turnedAtEveryPace(paced);
  });

  it('names the object of too many keys, nested too, and lets 4,096 keys reach the other checks', async () => {
    const ingest = (keys: number) =>
      postText(
        server,
        '/v1/logs',
        JSON.stringify({
          entries: [
            { event: 'a.b', actor: { type: 'user' }, result: 'success' },
            {
              event: 'a.b',
              actor: { type: 'user' },
              result: 'success',
              metadata: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 1])),
            },
          ],
        }),
      );
    const past = await ingest(4097);
    expect(past.status).toBe(400);
    expect((await json(past)).error.details).toEqual([
      { field: 'body.entries[1].metadata', message: 'must not have more than 4096 keys' },
    ]);
    const at = await ingest(4096);
    expect(at.status).toBe(400);
    expect((await json(at)).error.details).toEqual([
      { field: 'body.entries[1].metadata', message: 'must be at most 16 KiB when serialized' },
    ]);
  });

  it.each([
    ['/v1/policies', { name: 'p', effect: 'allow' }],
    ['/v1/users', { email: 'wide@example.com', name: 'w' }],
  ])('refuses a body of 90,000 keys to %s', async (path, fields) => {
    const body = JSON.stringify({ ...fields, ...manyKeys() });
    expect(body.length).toBeLessThan(1024 * 1024);
    const parsing = await bodyParsing(async () => {
      const res = await postText(server, path, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error.details).toEqual([
        { field: 'body', message: 'must not have more than 4096 keys' },
      ]);
    });
    // Refused in the nesting guard's first slice: the rest is never read nor built.
    expect(parsing.scannedTo).toBeLessThanOrEqual(64 * 1024);
    expect(parsing.parsedChars).toBe(0);
  });
});
