import { InvalidArgumentError } from 'commander';

// Option parsers: commander reports what they throw with the option's name, and the CLI exits 64.

export function positiveInteger(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('must be a positive integer.');
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new InvalidArgumentError('is too large.');
  return parsed;
}

/** An ISO 8601 instant with a time zone, as the API takes it (`2026-11-25T21:00:00Z`). */
export function instant(value: string): string {
  const shape = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
  if (!shape.test(value) || Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('must be an ISO 8601 instant, e.g. 2026-11-25T21:00:00Z.');
  return value;
}

/** `true` or `false`, as the API's boolean query parameters take them. */
export function boolean(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('must be true or false.');
}

/** A JSON object, e.g. `{"team":"blue"}`. */
export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"team":"blue"}\'.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"team":"blue"}\'.');
  return parsed as Record<string, unknown>;
}

/** Appends each use of a repeatable option. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A TCP port; 0 lets the system pick one. */
export function port(value: string): number {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || parsed > 65_535)
    throw new InvalidArgumentError('not a port (0–65535)');
  return parsed;
}

/** A value of a fixed set. */
export function oneOf<T extends string>(...values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value))
      throw new InvalidArgumentError(`not one of ${values.join(', ')}`);
    return value as T;
  };
}

/** A comma-separated list of distinct values of a fixed set, e.g. `event,result`. */
export function listOf<T extends string>(values: readonly T[]): (value: string) => T[] {
  return (value) => {
    const items = value.split(',').map((item) => item.trim());
    for (const item of items)
      if (!(values as readonly string[]).includes(item))
        throw new InvalidArgumentError(`${item || '(empty)'} is not one of ${values.join(', ')}`);
    if (new Set(items).size !== items.length)
      throw new InvalidArgumentError('names a field more than once');
    return items as T[];
  };
}
