import type { QueryParams } from '../../../storage/analytics/analytics-store.js';
import { type Atom, type SearchQuery, words } from '../search/query.js';

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

function atomSql(atom: Atom, p: Placeholders): string {
  let test: string;
  if (atom.kind === 'text') {
    const terms = words(atom.text);
    const each = terms.map((term) => `hasToken(words, ${p.add(term, 'String')})`);
    // A phrase: its words, adjacent and in order in one field (`words` separates a field's words by
    // one space, fields by two).
    if (terms.length > 1)
      each.push(`position(words, ${p.add(` ${terms.join(' ')} `, 'String')}) > 0`);
    test = each.join(' AND ');
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
      // Both sides lowered by the engine's one function: `lower` leaves non-ASCII capitals as they are.
      case 'actor':
        test = `(actor_id = ${p.add(value, 'String')} OR lowerUTF8(actor_email) = lowerUTF8(${p.add(value, 'String')}))`;
        break;
      case 'target': {
        const v = p.add(value, 'String');
        test = `(target_id = ${v} OR target_type = ${v})`;
        break;
      }
      case 'country':
        test = `lowerUTF8(country) = lowerUTF8(${p.add(value, 'String')})`;
        break;
      case 'result':
        test = `result = ${p.add(value, 'String')}`;
        break;
      case 'origin':
        test = `origin = ${p.add(value, 'String')}`;
        break;
      case 'ip':
        test = `ip = ${p.add(value, 'String')}`;
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
