import type { LogRow } from '../entries/sql.js';
import { PhraseMatcher } from './phrase-matcher.js';
import { type Atom, type SearchQuery, WORD, words } from './query.js';

/** What one hit's highlights may hold, whatever its entry and the query. */
export const HIGHLIGHT_LIMITS = {
  /** Highlighted fields per hit; the first ones in document order. */
  fieldsPerHit: 10,
  /** Characters of a field's text shown; a longer text is cut to a window around its first match. */
  charsPerField: 256,
  /** `<em>` ranges per field; later matches in the window are shown as plain text. */
  rangesPerField: 32,
} as const;

/** How much text a cut window shows before its first match. */
const CONTEXT_BEFORE_MATCH = 32;

type Range = [start: number, end: number];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** The searchable text fields of an entry, by their API path. */
function fields(row: LogRow): [string, string][] {
  const result: [string, string][] = [];
  const add = (path: string, value: string | number | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') result.push([path, String(value)]);
  };
  add('event', row.event);
  add('actor.id', row.actorId);
  add('actor.email', row.actorEmail);
  add('actor.type', row.actorType);
  add('target.id', row.targetId);
  add('target.type', row.targetType);
  add('context.ip', row.ip);
  add('context.userAgent', row.userAgent);
  add('context.location.city', row.city);
  add('context.location.country', row.country);
  add('context.location.region', row.region);
  // Iterative, in document order: stored metadata may be as deep as ingest allows.
  const stack: [unknown, string][] = [[row.metadata, 'metadata']];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'string' || typeof value === 'number') add(path, value);
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (value && typeof value === 'object') {
      // A key becomes part of a highlights key, which a client may render: escaped like values.
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i] as [string, unknown];
        stack.push([v, `${path}.${escapeHtml(key)}`]);
      }
    }
  }
  return result;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The part of a text a highlight shows: all of it, or a window that starts before `first`. */
function windowOf(text: string, first: number): Range {
  const size = HIGHLIGHT_LIMITS.charsPerField;
  if (text.length <= size) return [0, text.length];
  let start = Math.max(0, Math.min(first - CONTEXT_BEFORE_MATCH, text.length - size));
  let end = start + size;
  // Never half a surrogate pair at either cut.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return [start, end];
}

/**
 * The matched phrases of `text`, merged where they overlap, in one pass over its words that
 * stops at the end of the window the first match opens.
 */
function phraseRanges(text: string, matcher: PhraseMatcher): { ranges: Range[]; window: Range } {
  const ranges: Range[] = [];
  let window: Range = [0, text.length];
  if (matcher.empty) return { ranges, window };
  matcher.reset();
  const starts: number[] = [];
  let opened = false;
  for (const match of text.matchAll(WORD)) {
    if (opened && match.index >= window[1]) break;
    // The index lowercases before it splits, and lowercasing may split a word (İ is i and a
    // combining dot): each of its words is matched, and marks the whole word of the text.
    for (const word of words(match[0])) {
      starts.push(match.index);
      const matched = matcher.push(word);
      if (matched === 0) continue;
      let start = starts[starts.length - matched] as number;
      while (ranges.length > 0 && start < (ranges[ranges.length - 1] as Range)[1]) {
        start = Math.min(start, (ranges.pop() as Range)[0]);
      }
      ranges.push([start, match.index + match[0].length]);
      if (!opened) {
        window = windowOf(text, start);
        opened = true;
      }
    }
  }
  return { ranges, window };
}

/** `text` within `window`, `ranges` (sorted, disjoint) in `<em>`, cuts marked `…`, all escaped. */
function render(text: string, ranges: Range[], [from, to]: Range): string {
  let out = from > 0 ? '…' : '';
  let at = from;
  let shown = 0;
  for (const [rangeStart, rangeEnd] of ranges) {
    const start = Math.max(rangeStart, at);
    const end = Math.min(rangeEnd, to);
    if (start >= end) continue;
    if (shown++ === HIGHLIGHT_LIMITS.rangesPerField) break;
    out += `${escapeHtml(text.slice(at, start))}<em>${escapeHtml(text.slice(start, end))}</em>`;
    at = end;
  }
  out += escapeHtml(text.slice(at, to));
  return to < text.length ? `${out}…` : out;
}

/** Tests of the qualifiers that highlight a whole field, by the field's path. */
function wholeFieldTests(atoms: Atom[]): Map<string, ((text: string) => boolean)[]> {
  const tests = new Map<string, ((text: string) => boolean)[]>();
  const add = (path: string, test: (text: string) => boolean) =>
    tests.set(path, [...(tests.get(path) ?? []), test]);
  for (const atom of atoms) {
    if (atom.kind !== 'field') continue;
    const value = atom.value;
    if (atom.field === 'event') {
      const lower = value.toLowerCase();
      add(
        'event',
        lower.endsWith('*')
          ? (text) => text.startsWith(lower.slice(0, -1))
          : (text) => text === lower,
      );
    } else if (atom.field === 'actor') {
      add('actor.id', (text) => text === value);
      add('actor.email', (text) => text.toLowerCase() === value.toLowerCase());
    } else if (atom.field === 'ip') {
      add('context.ip', (text) => text === value);
    } else if (atom.field === 'target') {
      add('target.id', (text) => text === value);
      add('target.type', (text) => text === value);
    } else if (atom.field === 'country') {
      add('context.location.country', (text) => text.toLowerCase() === value.toLowerCase());
    }
  }
  return tests;
}

export type Highlighter = (row: LogRow) => Record<string, string>;

/**
 * Compiles a query once per search. The highlighter gives, for one hit, every field in which a
 * positive term or qualifier matched (within `HIGHLIGHT_LIMITS`), as its text with the matches
 * in `<em>` and everything else HTML-escaped. Its cost is linear in the hit's text.
 */
export function compileHighlighter(query: SearchQuery): Highlighter {
  const atoms = query.flat().filter((atom) => !atom.negated);
  const matcher = new PhraseMatcher(
    atoms.flatMap((atom) => (atom.kind === 'text' ? [words(atom.text)] : [])),
  );
  const whole = wholeFieldTests(atoms);
  return (row) => {
    const result: Record<string, string> = {};
    let highlighted = 0;
    for (const [path, text] of fields(row)) {
      if (highlighted === HIGHLIGHT_LIMITS.fieldsPerHit) break;
      const { ranges, window } = whole.get(path)?.some((test) => test(text))
        ? { ranges: [[0, text.length] as Range], window: windowOf(text, 0) }
        : phraseRanges(text, matcher);
      if (ranges.length === 0) continue;
      result[path] = render(text, ranges, window);
      highlighted++;
    }
    return result;
  };
}
