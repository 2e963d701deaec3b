import type { QueryParams } from '../../../storage/analytics/analytics-store.js';
import { type Atom, type SearchQuery, words } from '../search/query.js';
import { phraseKeys, qualifierKey } from './index-rows.js';

/** A condition of the store's SQL and the values its placeholders take. */
export interface Condition {
  sql: string;
  params: QueryParams;
}

/** Builds one statement's placeholders: each value gets a name of its own. */
export class Placeholders {
  readonly params: QueryParams = {};
  private next = 0;

  add(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }
}

const hasKey = (key: string, p: Placeholders) => `has(keys, ${p.add(key, 'String')})`;

/**
 * A word, or a phrase: its words adjacent and in order within one field. A phrase of two or three
 * words of letters is one of the entry's keys; a longer one, or one with digits, needs each word,
 * the keys of its letter runs, and then the text itself (`words` separates a field's words by one
 * space, fields by two).
 */
function textSql(terms: readonly string[], p: Placeholders): string {
  const keys = phraseKeys(terms);
  if (terms.length > 1 && terms.length <= 3 && keys.includes(terms.join(' ')))
    return hasKey(terms.join(' '), p);
  const each = terms.map((term) => `hasToken(words, ${p.add(term, 'String')})`);
  if (terms.length > 1) {
    each.push(...keys.map((key) => hasKey(key, p)));
    each.push(`position(words, ${p.add(` ${terms.join(' ')} `, 'String')}) > 0`);
  }
  return each.join(' AND ');
}

function atomSql(atom: Atom, p: Placeholders): string {
  let test: string;
  if (atom.kind === 'text') {
    test = textSql(words(atom.text), p);
  } else {
    const value = atom.value;
    switch (atom.field) {
      case 'event': {
        const event = value.toLowerCase();
        test = event.endsWith('*')
          ? `startsWith(event, ${p.add(event.slice(0, -1), 'String')})`
          : `event = ${p.add(event, 'String')}`;
        break;
      }
      case 'actor':
        test = `(${hasKey(qualifierKey('actor', value), p)} OR ${hasKey(qualifierKey('email', value.toLowerCase()), p)})`;
        break;
      case 'target':
        test = hasKey(qualifierKey('target', value), p);
        break;
      case 'country':
        test = hasKey(qualifierKey('country', value.toLowerCase()), p);
        break;
      case 'result':
        test = `result = ${p.add(value, 'String')}`;
        break;
      case 'origin':
        test = `origin = ${p.add(value, 'String')}`;
        break;
      case 'ip':
        test = hasKey(qualifierKey('ip', value), p);
        break;
    }
  }
  return atom.negated ? `NOT (${test})` : `(${test})`;
}

/**
 * A parsed search query as a condition on the store's table: words through its text index
 * (`hasToken`), qualifiers on their columns. Every value is a placeholder.
 */
export function queryCondition(query: SearchQuery, p: Placeholders): string {
  return query
    .map((clause) => `(${clause.map((atom) => atomSql(atom, p)).join(' OR ')})`)
    .join(' AND ');
}

/** Entries in `[from, to)`, of one origin, matching a query: each part only when given. */
export function scopeCondition(
  scope: {
    from?: Date | undefined;
    to?: Date | undefined;
    origin?: string | undefined;
    events?: readonly string[] | undefined;
    throughSeq?: number | undefined;
    query?: SearchQuery | undefined;
  },
  p: Placeholders,
): string {
  const parts = ['1'];
  if (scope.from)
    parts.push(
      `timestamp >= fromUnixTimestamp64Milli(${p.add(scope.from.getTime(), 'Int64')}, 'UTC')`,
    );
  if (scope.to)
    parts.push(
      `timestamp < fromUnixTimestamp64Milli(${p.add(scope.to.getTime(), 'Int64')}, 'UTC')`,
    );
  if (scope.origin) parts.push(`origin = ${p.add(scope.origin, 'String')}`);
  if (scope.events) parts.push(`event IN ${p.add(scope.events, 'Array(String)')}`);
  if (scope.throughSeq !== undefined) parts.push(`seq <= ${p.add(scope.throughSeq, 'UInt64')}`);
  if (scope.query) parts.push(queryCondition(scope.query, p));
  return parts.join(' AND ');
}
