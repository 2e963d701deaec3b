/** `2026-11-26T22:00:00.123Z` → `2026-11-26 22:00:00.123`: every time the console shows is UTC. */
export function utc(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, '');
}

/** An `<input type="datetime-local">` value, read as UTC, → ISO; undefined when not a time. */
export function fromUtcInput(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const date = new Date(`${value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** ISO → the value of an `<input type="datetime-local" step="1">`, in UTC. */
export function toUtcInput(iso: string): string {
  return iso.slice(0, 19);
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
