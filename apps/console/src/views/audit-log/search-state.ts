import { DAY, HOUR, MINUTE } from '../../lib/time.js';

/** What the audit log shows, as its address's fragment holds it: `q`, `from`, `to`, `entry`. */
export interface SearchState {
  query: string;
  from: string;
  to: string;
  entry?: string;
}

export const RANGES = [
  { id: '1h', label: 'Last hour', ms: HOUR },
  { id: '24h', label: 'Last 24 hours', ms: DAY },
  { id: '7d', label: 'Last 7 days', ms: 7 * DAY },
  { id: '30d', label: 'Last 30 days', ms: 30 * DAY },
] as const;

/** `[now - ms, now)`, `to` rounded up to the next minute so that what was just written is in. */
export function lastRange(ms: number, now = Date.now()): { from: string; to: string } {
  const to = Math.ceil((now + 1) / MINUTE) * MINUTE;
  return { from: new Date(to - ms).toISOString(), to: new Date(to).toISOString() };
}

const isInstant = (text: string | null): text is string =>
  text !== null && !Number.isNaN(Date.parse(text)) && /^\d{4}-\d{2}-\d{2}T/.test(text);

/** The state in `fragment`; a range that is absent or unreadable becomes the last 24 hours. */
export function readSearch(fragment: URLSearchParams): SearchState {
  const from = fragment.get('from');
  const to = fragment.get('to');
  const range =
    isInstant(from) && isInstant(to) && Date.parse(from) < Date.parse(to)
      ? { from: new Date(from).toISOString(), to: new Date(to).toISOString() }
      : lastRange(DAY);
  const entry = fragment.get('entry') ?? undefined;
  return { query: fragment.get('q')?.trim() ?? '', ...range, ...(entry ? { entry } : {}) };
}

export function writeSearch(state: SearchState): URLSearchParams {
  const fragment = new URLSearchParams();
  if (state.query) fragment.set('q', state.query);
  fragment.set('from', state.from);
  fragment.set('to', state.to);
  if (state.entry) fragment.set('entry', state.entry);
  return fragment;
}

/** `query` with `qualifier:value` added (once), as a facet click asks. */
export function withQualifier(query: string, qualifier: string, value: string): string {
  const term = /[\s"]/.test(value)
    ? `${qualifier}:"${value.replace(/"/g, '')}"`
    : `${qualifier}:${value}`;
  const terms = query.split(/\s+/).filter(Boolean);
  return terms.includes(term) ? query : [...terms, term].join(' ');
}
