import { InvalidArgumentError } from 'commander';

// Parsers for option values: a bad value is refused by commander, which names the option,
// and the CLI exits 64.

export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('not a positive integer');
  return parsed;
}

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
