import { describe, expect, it } from 'vitest';
import { logRow as row } from '../../../../test/helpers/fixtures.js';
import { loadSpec } from '../../../http/operations.js';
import type { LogRow } from '../entries/sql.js';
import { compileHighlighter, HIGHLIGHT_LIMITS } from './highlight.js';
import { PhraseMatcher } from './phrase-matcher.js';
import { MAX_QUERY_TERMS, parseSearchQuery } from './query.js';

const highlight = (query: string, fields: Partial<LogRow>) =>
  compileHighlighter(parseSearchQuery(query))(row(fields));

describe('PhraseMatcher', () => {
  it('reports the longest phrase ending at each word, across overlapping phrases', () => {
    const matcher = new PhraseMatcher([['a', 'b'], ['b', 'c', 'd'], ['c'], ['a', 'b', 'c', 'x']]);
    expect('a b c d a b c x'.split(' ').map((w) => matcher.push(w))).toEqual([
      0, 2, 1, 3, 0, 2, 1, 4,
    ]);
  });
});

describe('compileHighlighter', () => {
  it('merges overlapping and repeated matches into one <em>', () => {
    expect(highlight('"a b" "b c" a a a', { userAgent: 'x a b c y' })).toEqual({
      'context.userAgent': 'x <em>a b c</em> y',
    });
  });

  it('cuts a long text to a window before its first match, marking the cuts', () => {
    const text = `${'lorem '.repeat(100)}needle ${'ipsum '.repeat(100)}`;
    const shown = highlight('needle', { userAgent: text })['context.userAgent'] as string;
    expect(shown.startsWith('…')).toBe(true);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.replace(/<\/?em>|…/g, '')).toHaveLength(HIGHLIGHT_LIMITS.charsPerField);
    expect(shown).toContain(' <em>needle</em> ipsum');
  });

  it('shows at most the limits: <em> per field and fields per hit', () => {
    const shown = highlight('a', { userAgent: 'a '.repeat(100) })['context.userAgent'] as string;
    expect(shown.match(/<em>/g)).toHaveLength(HIGHLIGHT_LIMITS.rangesPerField);
    const metadata = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'a']));
    expect(Object.keys(highlight('a', { metadata }))).toHaveLength(HIGHLIGHT_LIMITS.fieldsPerHit);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'😀'.repeat(200)} needle ${'😀'.repeat(200)}`;
    const shown = highlight('needle', { userAgent: text })['context.userAgent'] as string;
    expect(shown).not.toMatch(/\p{Cs}/u);
  });

  it('highlights a whole field for its qualifier, however long', () => {
    const id = 'x'.repeat(300);
    expect(highlight(`actor:${id}`, { actorId: id })['actor.id']).toBe(
      `<em>${'x'.repeat(HIGHLIGHT_LIMITS.charsPerField)}</em>…`,
    );
  });
});

describe('the spec', () => {
  it('states the bounds the code enforces', () => {
    type Property = { description: string; maxProperties?: number };
    const schemas = loadSpec().components.schemas as Record<
      string,
      { properties: Record<string, Property> }
    >;
    expect(schemas.SearchRequest?.properties.query?.description).toContain(
      `At most ${MAX_QUERY_TERMS} terms`,
    );
    const highlights = schemas.SearchHit?.properties.highlights as Property;
    expect(highlights.maxProperties).toBe(HIGHLIGHT_LIMITS.fieldsPerHit);
    expect(highlights.description).toContain(`${HIGHLIGHT_LIMITS.charsPerField} characters`);
    expect(highlights.description).toContain(`at most ${HIGHLIGHT_LIMITS.rangesPerField} \`<em>\``);
  });
});
