import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileHighlighter } from '../../src/features/audit-log/search/highlight.js';
import { PhraseMatcher } from '../../src/features/audit-log/search/phrase-matcher.js';
import {
  MAX_QUERY_TERMS,
  parseSearchQuery,
  type SearchQuery,
  WORD,
  words,
} from '../../src/features/audit-log/search/query.js';
import { Invalid } from '../../src/lib/errors.js';
import { logRow as row } from '../helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 170);

/** Queries built to be expensive: nesting, repetition, long words, lone operators. */
const PATHOLOGICAL_QUERIES = [
  '"'.repeat(500),
  `${'('.repeat(250)}${')'.repeat(250)}`,
  `${'a OR '.repeat(99)}a`,
  `${'a OR '.repeat(6)}a`,
  '-'.repeat(500),
  `${'-a '.repeat(32)}`.trim(),
  'x'.repeat(500),
  `"${'a '.repeat(249)}a"`,
  `"${'a '.repeat(100)}b" "${'a '.repeat(100)}c"`,
  `${'"a" '.repeat(32)}`.trim(),
  `${'event:* '.repeat(32)}`.trim(),
  `actor:${'x'.repeat(490)}`,
  `ip:${'1'.repeat(497)}`,
  'OR '.repeat(166),
  `${'a:b '.repeat(125)}`,
  `${'é'.repeat(250)} ${'😀'.repeat(100)}`,
  '\u0000\u0001\u200b\ufeff a',
];

/** Entries built to be expensive to highlight or to blow up once escaped. */
const PATHOLOGICAL_ENTRIES = [
  { userAgent: 'a '.repeat(512), metadata: { note: 'a '.repeat(8000) } },
  { userAgent: `"<&>'`.repeat(204), metadata: { note: `a"<&>'`.repeat(2000) } },
  { userAgent: '😀a'.repeat(341), metadata: { note: `${'😀'.repeat(3000)} a` } },
  { metadata: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}<"'>`, 'a b'])) },
  { metadata: { list: Array.from({ length: 2000 }, () => 'a') } },
  { metadata: { note: `${'b '.repeat(7000)}a` } },
];

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/** The highlight of a short text the slow, obvious way: every phrase at every word. */
function naiveHighlight(text: string, query: SearchQuery): string | undefined {
  const spans = [...text.matchAll(WORD)].map((m) => ({
    word: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const covered = new Array<boolean>(text.length).fill(false);
  let any = false;
  for (const atom of query.flat()) {
    if (atom.negated || atom.kind !== 'text') continue;
    const phrase = words(atom.text);
    for (let i = 0; i + phrase.length <= spans.length; i++) {
      if (!phrase.every((w, j) => spans[i + j]?.word === w)) continue;
      any = true;
      const from = spans[i]?.start as number;
      const to = spans[i + phrase.length - 1]?.end as number;
      // Overlapping matches cover one run; separate matches stay apart (a separator between).
      for (let k = from; k < to; k++) covered[k] = true;
    }
  }
  if (!any) return undefined;
  let out = '';
  for (let i = 0; i < text.length; ) {
    let j = i;
    while (j < text.length && covered[j] === covered[i]) j++;
    const part = escapeHtml(text.slice(i, j));
    out += covered[i] ? `<em>${part}</em>` : part;
    i = j;
  }
  return out;
}

describe('search query and highlight fuzzing', () => {
  const vocabulary = fc.constantFrom('a', 'b', 'ab', 'A', 'é', '1');
  const separator = fc.constantFrom(' ', '.', '-', '<', '&', '"', "'", '  ');
  const text = fc
    .array(fc.tuple(vocabulary, separator), { maxLength: 12 })
    .map((parts) => parts.map(([w, s]) => w + s).join(''));
  const term = fc.oneof(
    vocabulary,
    fc.array(vocabulary, { minLength: 1, maxLength: 4 }).map((ws) => `"${ws.join(' ')}"`),
    vocabulary.map((w) => `-${w}`),
  );
  const query = fc
    .array(fc.tuple(term, fc.boolean()), { minLength: 1, maxLength: 8 })
    .map((parts) => parts.map(([t, or], i) => (i > 0 && or ? `OR ${t}` : t)).join(' '));

  it('highlights short texts exactly as matching every phrase at every word would', () => {
    fc.assert(
      fc.property(text, query, (userAgent, q) => {
        const parsed = parseSearchQuery(q);
        const shown = compileHighlighter(parsed)(row({ userAgent }))['context.userAgent'];
        expect(shown).toBe(naiveHighlight(userAgent, parsed));
      }),
      { numRuns: RUNS * 10 },
    );
  });

  it('parses any string of up to 500 characters, or refuses it as invalid', () => {
    const hostile = fc.string({
      unit: fc.constantFrom('"', '(', ')', '-', ' ', 'OR', ':', 'a', 'é', '😀', 'event:', '*'),
      maxLength: 500,
    });
    fc.assert(
      fc.property(fc.oneof(hostile, fc.string({ maxLength: 500 })), (q) => {
        try {
          expect(parseSearchQuery(q).flat().length).toBeLessThanOrEqual(MAX_QUERY_TERMS);
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
        }
      }),
      { numRuns: RUNS * 10 },
    );
  });

  describe('against a server holding pathological entries', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
      const entries = PATHOLOGICAL_ENTRIES.map(({ userAgent, metadata }) => ({
        event: 'user.login',
        actor: { type: 'user', id: 'a' },
        result: 'success',
        ...(userAgent ? { context: { userAgent } } : {}),
        metadata,
      }));
      const { response } = await server.client.POST('/v1/logs', { body: { entries } as never });
      expect(response.status).toBe(201);
      await server.searchable();
    });
    afterAll(() => server?.stop());

    it('answers pathological queries with 200 and bounded highlights, or 400, reading each word of the entries at most once', async () => {
      // Every word the entries hold (their keys too): highlighting reads no more per query.
      const plantedWords = PATHOLOGICAL_ENTRIES.reduce(
        (sum, entry) => sum + (JSON.stringify(entry).match(WORD)?.length ?? 0),
        0,
      );
      const answered: number[] = [];
      let hits = 0;
      const push = vi.spyOn(PhraseMatcher.prototype, 'push');
      try {
        for (const q of [...PATHOLOGICAL_QUERIES, 'a', 'a b', '"a a a a"', `${'a '.repeat(32)}`]) {
          push.mockClear();
          const res = await raw(server, '/v1/logs/search', {
            method: 'POST',
            headers: {
              authorization: `Bearer ${server.rootKey}`,
              'content-type': 'application/json',
            },
            body: JSON.stringify({ query: q, limit: 1000 }),
          });
          const body = await json(res);
          // The test server validates every response against the spec: its bounds included.
          expect([200, 400], `${q.slice(0, 40)}: ${JSON.stringify(body).slice(0, 300)}`).toContain(
            res.status,
          );
          expect(push.mock.calls.length, q.slice(0, 40)).toBeLessThanOrEqual(plantedWords);
          answered.push(res.status);
          hits += body.data?.length ?? 0;
        }
      } finally {
        push.mockRestore();
      }
      expect(answered).toContain(200);
      expect(answered).toContain(400);
      // Highlighting ran: the entries were found.
      expect(hits).toBeGreaterThan(0);
    });
  });
});
