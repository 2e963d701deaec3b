import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from '../search/query.js';
import { Placeholders, queryCondition } from './query-sql.js';

/** The condition a query becomes, with its placeholders' values in place. */
function conditionOf(query: string): string {
  const p = new Placeholders();
  const sql = queryCondition(parseSearchQuery(query), p);
  return sql.replace(/\{(p\d+):[^}]+\}/g, (_, name: string) => JSON.stringify(p.params[name]));
}

// What keeps a search from reading the entries' text or columns: each of these is answered from
// a text index's posting lists alone.
describe('the store condition of a query', () => {
  it('finds a phrase of two or three words of letters from its key alone', () => {
    expect(conditionOf('"suspicious login pattern"')).toBe(
      '((has(keys, "suspicious login pattern")))',
    );
    expect(conditionOf('"Suspicious Login"')).toBe('((has(keys, "suspicious login")))');
  });

  it('checks the text of a longer phrase, or one with digits, after its words and keys', () => {
    const long = conditionOf('"a bb ccc dddd"');
    expect(long).toContain('has(keys, "a bb ccc")');
    expect(long).toContain('has(keys, "bb ccc dddd")');
    expect(long).toContain('position(words, " a bb ccc dddd ")');
    const digits = conditionOf('"error 42 again"');
    expect(digits).toContain('hasToken(words, "42")');
    expect(digits).toContain('position(words, " error 42 again ")');
  });

  it('finds qualifier values from their keys, emails and countries without case', () => {
    expect(conditionOf('actor:Ada@Example.com')).toBe(
      '(((has(keys, "actor:Ada@Example.com") OR has(keys, "email:ada@example.com"))))',
    );
    expect(conditionOf('ip:10.0.0.1 target:doc_1 -country:FR')).toBe(
      '((has(keys, "ip:10.0.0.1"))) AND ((has(keys, "target:doc_1"))) AND (NOT (has(keys, "country:fr")))',
    );
  });
});
