/** `2026-11-25T21:00:00Z`: users, policies and keys. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** `2026-11-25T21:00:00.123Z`: log entries and exports. */
export function isoMillis(date: Date): string {
  return date.toISOString();
}

/** Now, truncated to the second, for resources whose timestamps have no fraction. */
export function nowSeconds(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}

/**
 * The instants an input may name (the spec's `InstantInput`): years 0001 to 9999 in UTC, what
 * both PostgreSQL's `timestamptz` and the four-digit years of the API's timestamps can hold.
 * `0000-…`, or an offset that carries an instant past either end, is out of range.
 */
const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');
const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** The message of a 400 for an `InstantInput` that `parseInstant` refuses. */
export const INVALID_INSTANT =
  'must be an ISO 8601 instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/** Parses the spec's `InstantInput` (a date, or a date-time with zone); undefined if invalid. */
export function parseInstant(text: string): Date | undefined {
  const normalized = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(normalized)) {
    return undefined;
  }
  const [, y, mo, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(normalized) as RegExpExecArray;
  const ms = Date.parse(normalized);
  if (Number.isNaN(ms) || ms < EARLIEST_INSTANT_MS || ms > LATEST_INSTANT_MS) return undefined;
  // Date.parse rolls 2026-02-30 over to March; a calendar date that does not exist is invalid.
  // setUTCFullYear, not Date.UTC: that one reads the years 0 to 99 as 1900 to 1999.
  const check = new Date(0);
  check.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined;
  return new Date(ms);
}
