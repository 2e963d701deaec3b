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

/** Parses the spec's `InstantInput` (a date, or a date-time with zone); undefined if invalid. */
export function parseInstant(text: string): Date | undefined {
  const normalized = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(normalized)) {
    return undefined;
  }
  const [, y, mo, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(normalized) as RegExpExecArray;
  const ms = Date.parse(normalized);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2026-02-30 over to March; a calendar date that does not exist is invalid.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined;
  return new Date(ms);
}
