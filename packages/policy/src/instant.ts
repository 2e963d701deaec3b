const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');
const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The spec's `InstantInput` (a date, or a date-time with `Z` or an offset, from year 0001 to
 * 9999 in UTC) in epoch milliseconds; undefined for anything else, a date that does not exist
 * (`2026-02-30`) included.
 */
export function parseInstantMs(text: string): number | undefined {
  const normalized = DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text;
  const parts = DATE_TIME.exec(normalized);
  if (!parts) return undefined;
  const ms = Date.parse(normalized);
  if (Number.isNaN(ms) || ms < EARLIEST_INSTANT_MS || ms > LATEST_INSTANT_MS) return undefined;
  // Date.parse rolls 2026-02-30 over to March; setUTCFullYear, not Date.UTC, which reads the
  // years 0 to 99 as 1900 to 1999.
  const [, y, mo, d] = parts;
  const check = new Date(0);
  check.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined;
  return ms;
}
