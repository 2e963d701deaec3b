import { Invalid } from '../../../lib/errors.js';

const QUALIFIERS = ['event', 'actor', 'result', 'ip', 'target', 'country', 'origin'] as const;

export type Qualifier = (typeof QUALIFIERS)[number];

export type Atom =
  | { kind: 'text'; text: string; negated: boolean }
  | { kind: 'field'; field: Qualifier; value: string; negated: boolean };

/** A search query: every clause must hold; a clause holds when one of its atoms does. */
export type SearchQuery = Atom[][];

/** The qualifiers that take only some values, and those values. */
const ALLOWED_VALUES: Partial<Record<Qualifier, readonly string[]>> = {
  result: ['success', 'failure'],
  origin: ['service', 'api'],
};

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

const isQualifier = (name: string): name is Qualifier =>
  (QUALIFIERS as readonly string[]).includes(name);

/**
 * A query that cannot be parsed: the 400 names `query` and says where, as a 1-based position
 * in Unicode code points (what the schema's `maxLength` counts), in its words and in `position`.
 */
function unparsable(problem: string, position: number): Invalid {
  return new Invalid(
    [{ field: 'query', message: `${problem} at character ${position}`, position }],
    'The query cannot be parsed.',
  );
}

interface Token {
  /** The token's text, its quotes removed. */
  text: string;
  negated: boolean;
  isOr: boolean;
  /** 1-based position (in code points) of the text's first character, after any `-`. */
  position: number;
  /** How many UTF-16 units of `text` stand before its first quote: a qualifier's name and colon lie there. */
  unquoted: number;
}

const isSpace = (char: string | undefined) => char !== undefined && /\s/u.test(char);

/**
 * Splits on whitespace, keeping `"quoted phrases"`, token by token (so that the first problem
 * of the query, from its start, is the one reported). Throws on an unclosed quote and on a `-`
 * followed by nothing or by whitespace.
 */
function* tokenize(query: string): Generator<Token> {
  // Code points, not UTF-16 units: positions count characters as a person does.
  const chars = Array.from(query);
  let i = 0;
  while (i < chars.length) {
    while (isSpace(chars[i])) i++;
    if (i >= chars.length) break;
    let negated = false;
    if (chars[i] === '-') {
      if (i + 1 === chars.length || isSpace(chars[i + 1])) {
        throw unparsable('- with no term after it', i + 1);
      }
      negated = true;
      i++;
    }
    const position = i + 1;
    let text = '';
    let unquoted: number | undefined;
    while (i < chars.length && !isSpace(chars[i])) {
      if (chars[i] === '"') {
        unquoted ??= text.length;
        const close = chars.indexOf('"', i + 1);
        if (close === -1) throw unparsable('unclosed quote', i + 1);
        text += chars.slice(i + 1, close).join('');
        i = close + 1;
      } else {
        text += chars[i];
        i++;
      }
    }
    const quoted = unquoted !== undefined;
    yield {
      text,
      negated,
      isOr: !quoted && !negated && text === 'OR',
      position,
      unquoted: unquoted ?? text.length,
    };
  }
}

/** A qualifier's name is case-insensitive, and only counts when it and its colon are unquoted. */
function qualifierOf(token: Token): { field: Qualifier; colon: number } | undefined {
  const colon = token.text.indexOf(':');
  if (colon <= 0 || colon >= token.unquoted) return undefined;
  const field = token.text.slice(0, colon).toLowerCase();
  return isQualifier(field) ? { field, colon } : undefined;
}

function toAtom(token: Token): Atom | undefined {
  const qualifier = qualifierOf(token);
  if (qualifier) {
    const { field, colon } = qualifier;
    const value = token.text.slice(colon + 1);
    if (value === '') throw unparsable(`${field}: with no value`, token.position);
    const allowed = ALLOWED_VALUES[field];
    if (allowed && !allowed.includes(value)) {
      // The name is ASCII, so the value starts `colon + 1` code points after the token.
      throw unparsable(
        `${field}: value must be ${allowed.join(' or ')}`,
        token.position + colon + 1,
      );
    }
    return { kind: 'field', field, value, negated: token.negated };
  }
  return words(token.text).length > 0
    ? { kind: 'text', text: token.text, negated: token.negated }
    : undefined;
}

/**
 * Web-search syntax: terms are AND-ed, `OR` joins its neighbours, `-` excludes, `"…"` is a
 * phrase, and `event:`/`actor:`/`result:`/`ip:`/`target:`/`country:`/`origin:` qualify. A query
 * that cannot be parsed (an unclosed quote, an `OR` without a term on either side, a `-` without
 * a term, a qualifier without a value, a `result:` or `origin:` value outside its values), one
 * with nothing to search for (a term without letters or digits is left out), and one with more
 * than `MAX_QUERY_TERMS` terms are a 400.
 */
export function parseSearchQuery(query: string): SearchQuery {
  const clauses: SearchQuery = [];
  let previous: Token | undefined;
  let joinNext = false;
  for (const token of tokenize(query)) {
    if (token.isOr) {
      if (!previous) throw unparsable('OR with no term before it', token.position);
      if (previous.isOr) throw unparsable('OR right after another OR', token.position);
      joinNext = clauses.length > 0;
    } else {
      const atom = toAtom(token);
      if (atom) {
        const last = clauses[clauses.length - 1];
        if (joinNext && last) last.push(atom);
        else clauses.push([atom]);
        joinNext = false;
      }
    }
    previous = token;
  }
  if (previous?.isOr) throw unparsable('OR with no term after it', previous.position);
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
