import { parseInstantMs } from '@secadmin/policy';

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

/** The message of a 400 for an `InstantInput` that `parseInstant` refuses. */
export const INVALID_INSTANT =
  'must be an ISO 8601 instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';

/**
 * Parses the spec's `InstantInput` (a date, or a date-time with zone); undefined if invalid.
 * Years 0001 to 9999 in UTC, what both PostgreSQL's `timestamptz` and the four-digit years of
 * the API's timestamps can hold; the policy evaluator reads instants the same way.
 */
export function parseInstant(text: string): Date | undefined {
  const ms = parseInstantMs(text);
  return ms === undefined ? undefined : new Date(ms);
}
