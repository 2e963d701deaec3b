import { Invalid } from '../../../lib/errors.js';

export type Qualifier = 'event' | 'actor' | 'result' | 'ip';

export type Atom =
  | { kind: 'text'; text: string; negated: boolean }
  | { kind: 'field'; field: Qualifier; value: string; negated: boolean };

/** A search query: every clause must hold; a clause holds when one of its atoms does. */
export type SearchQuery = Atom[][];

const QUALIFIERS = new Set<string>(['event', 'actor', 'result', 'ip']);

/**
 * The most terms (words, phrases and qualifiers, excluded ones included) a query may have:
 * each one costs a branch of the tsquery and a phrase of the highlighter.
 */
export const MAX_QUERY_TERMS = 64;
/** A word: an alphanumeric run (global: use with `match` or `matchAll`, never `exec`). */
export const WORD = /[\p{L}\p{N}]+/gu;

/** The alphanumeric runs of a text, lowercased: how both the index and highlights see words. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
  isOr: boolean;
}

/** Splits on whitespace, keeping `"quoted phrases"` (an unclosed quote runs to the end). */
function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    while (i < query.length && /\s/.test(query[i] as string)) i++;
    if (i >= query.length) break;
    let negated = false;
    if (query[i] === '-' && i + 1 < query.length && !/\s/.test(query[i + 1] as string)) {
      negated = true;
      i++;
    }
    let text = '';
    let quoted = false;
    while (i < query.length && !/\s/.test(query[i] as string)) {
      if (query[i] === '"') {
        const close = query.indexOf('"', i + 1);
        const end = close === -1 ? query.length : close;
        text += query.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else {
        text += query[i];
        i++;
      }
    }
    tokens.push({ text, quoted, negated, isOr: !quoted && !negated && text === 'OR' });
  }
  return tokens;
}

function toAtom(token: Token): Atom | undefined {
  const colon = token.text.indexOf(':');
  const field = colon > 0 ? token.text.slice(0, colon).toLowerCase() : '';
  if (QUALIFIERS.has(field)) {
    // A qualifier with no value (`event:`) qualifies nothing.
    if (token.text.length === colon + 1) return undefined;
    {
      const value = token.text.slice(colon + 1);
      if (field === 'result' && value !== 'success' && value !== 'failure') {
        throw new Invalid(
          [{ field: 'query', message: 'result: must be success or failure' }],
          'The query is invalid.',
        );
      }
      return { kind: 'field', field: field as Qualifier, value, negated: token.negated };
    }
  }
  return words(token.text).length > 0
    ? { kind: 'text', text: token.text, negated: token.negated }
    : undefined;
}

/**
 * Web-search syntax: terms are AND-ed, `OR` joins its neighbours, `-` excludes,
 * `"…"` is a phrase, `event:`/`actor:`/`result:`/`ip:` qualify. Best effort on
 * malformed input (stray `OR`, lone `-`, unclosed quote); a query with nothing left to
 * search for, or with more than `MAX_QUERY_TERMS` terms, is a 400.
 */
export function parseSearchQuery(query: string): SearchQuery {
  const clauses: SearchQuery = [];
  let joinNext = false;
  for (const token of tokenize(query)) {
    if (token.isOr) {
      joinNext = clauses.length > 0;
      continue;
    }
    const atom = toAtom(token);
    if (!atom) continue;
    const last = clauses[clauses.length - 1];
    if (joinNext && last) last.push(atom);
    else clauses.push([atom]);
    joinNext = false;
  }
  if (clauses.length === 0) {
    throw new Invalid(
      [{ field: 'query', message: 'must contain at least one word or qualifier' }],
      'The query has nothing to search for.',
    );
  }
  const terms = clauses.reduce((sum, clause) => sum + clause.length, 0);
  if (terms > MAX_QUERY_TERMS) {
    throw new Invalid(
      [{ field: 'query', message: `must have at most ${MAX_QUERY_TERMS} terms, has ${terms}` }],
      'The query has too many terms.',
    );
  }
  return clauses;
}
