import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Glob patterns built to defeat naive matchers (long runs of one character ending in a near
 * miss, many `*`, overlapping parts) as draft resources of batch simulations against long
 * resources: every decision agrees with a reference matcher of the same semantics, and
 * patterns past the spec's bounds are refused with 400 naming them.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 170);
const MAX_STARS = 8;
const MAX_PATTERN = 256;

/**
 * The semantics as the textbook wildcard table (`*` is any run of characters, the rest
 * literal), in time proportional to pattern × text: a backtracking regular expression takes
 * seconds on these inputs, long enough for the server to close the idle keep-alive connection.
 */
const reference = (pattern: string, text: string) => {
  let row = [true, ...Array<boolean>(text.length).fill(false)];
  for (const char of pattern) {
    const next = [char === '*' && (row[0] as boolean)];
    for (let j = 1; j <= text.length; j++)
      next[j] =
        char === '*'
          ? (row[j] as boolean) || (next[j - 1] as boolean)
          : (row[j - 1] as boolean) && text[j - 1] === char;
    row = next;
  }
  return row[text.length] as boolean;
};

const run = (unit: string) => fc.integer({ min: 1, max: 150 }).map((n) => unit.repeat(n));
const part = fc.oneof(run('a'), run('ab'), fc.constantFrom('b', 'ba', 'aab', '/', ''));
const pattern = fc
  .array(part, { minLength: 1, maxLength: MAX_STARS + 1 })
  .map((parts) => parts.join('*'))
  .filter((p) => p.length > 0 && p.length <= MAX_PATTERN);
const resource = fc
  .tuple(fc.integer({ min: 1, max: 500 }), fc.constantFrom('', 'b', 'ab', '/b', 'aab'))
  .map(([n, tail]) => `${'a'.repeat(n)}${tail}`.slice(0, 512));

describe('pathological glob patterns in batch simulation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const batch = (body: unknown) =>
    raw(server, '/v1/policies/simulate/batch', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('decides as the reference matcher does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(pattern, { minLength: 1, maxLength: 5 }),
        fc.array(resource, { minLength: 1, maxLength: 20 }),
        async (patterns, resources) => {
          const res = await batch({
            checks: resources.map((r) => ({ principal: 'role:fuzz', action: 'a:b', resource: r })),
            draftPolicies: patterns.map((p, i) => ({
              name: `p${i}`,
              effect: 'allow',
              principals: ['role:fuzz'],
              actions: ['a:b'],
              resources: [p],
            })),
            useStored: false,
          });
          const body = await json(res);
          expect(res.status, JSON.stringify(body)).toBe(200);
          const expected = resources.map((r) => patterns.some((p) => reference(p, r)));
          expect(body.data.results.map((r: { allowed: boolean }) => r.allowed)).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
  }, 180_000);

  it('refuses patterns past 256 characters or 8 `*` with 400 naming each', async () => {
    const tooMany = fc
      .array(part, { minLength: MAX_STARS + 2, maxLength: 20 })
      .map((parts) => parts.join('*').slice(0, MAX_PATTERN));
    const tooLong = fc.string({
      minLength: MAX_PATTERN + 1,
      maxLength: 600,
      unit: 'grapheme-ascii',
    });
    const bad = fc
      .oneof(tooMany, tooLong)
      .filter((p) => p.split('*').length - 1 > MAX_STARS || p.length > MAX_PATTERN);
    await fc.assert(
      fc.asyncProperty(bad, async (p) => {
        const res = await batch({
          checks: [{ principal: 'role:fuzz', action: 'a:b', resource: 'x' }],
          draftPolicies: [
            { name: 'bad', effect: 'allow', principals: ['*'], actions: ['a:b'], resources: [p] },
          ],
        });
        const body = await json(res);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(body.error.details.map((d: { field: string }) => d.field)).toContain(
          'body.draftPolicies[0].resources[0]',
        );
      }),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  }, 180_000);
});
