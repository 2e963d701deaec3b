import type { LogRow } from '../repository.js';
import { type SearchQuery, words } from './query.js';

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

/** Character ranges of `phrase` (a word sequence) in `text`, matched word by word. */
function phraseRanges(text: string, phrase: string[]): [number, number][] {
  const spans = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({
    word: m[0].toLowerCase(),
    start: m.index,
    end: m.index + m[0].length,
  }));
  const ranges: [number, number][] = [];
  for (let i = 0; i + phrase.length <= spans.length; i++) {
    if (phrase.every((w, j) => spans[i + j]?.word === w)) {
      ranges.push([
        (spans[i] as { start: number }).start,
        (spans[i + phrase.length - 1] as { end: number }).end,
      ]);
    }
  }
  return ranges;
}

function wrap(text: string, ranges: [number, number][]): string {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of sorted) {
    if (start < at) continue;
    out += `${escapeHtml(text.slice(at, start))}<em>${escapeHtml(text.slice(start, end))}</em>`;
    at = end;
  }
  return out + escapeHtml(text.slice(at));
}

/**
 * For one hit: every field in which a positive term or qualifier matched, as its text
 * with the matches in `<em>` and everything else HTML-escaped.
 */
export function highlights(row: LogRow, query: SearchQuery): Record<string, string> {
  const atoms = query.flat().filter((atom) => !atom.negated);
  const result: Record<string, string> = {};
  for (const [path, text] of fields(row)) {
    const ranges: [number, number][] = [];
    for (const atom of atoms) {
      if (atom.kind === 'text') {
        ranges.push(...phraseRanges(text, words(atom.text)));
      } else {
        const whole =
          (atom.field === 'event' &&
            path === 'event' &&
            (atom.value.endsWith('*')
              ? text.startsWith(atom.value.slice(0, -1).toLowerCase())
              : text === atom.value.toLowerCase())) ||
          (atom.field === 'actor' && path === 'actor.id' && text === atom.value) ||
          (atom.field === 'actor' &&
            path === 'actor.email' &&
            text.toLowerCase() === atom.value.toLowerCase()) ||
          (atom.field === 'ip' && path === 'context.ip' && text === atom.value);
        if (whole) ranges.push([0, text.length]);
      }
    }
    if (ranges.length > 0) result[path] = wrap(text, ranges);
  }
  return result;
}
