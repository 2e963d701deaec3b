import { describe, expect, it } from 'vitest';
import { promptReading } from './prompt-reading.js';

/** Reads the test finishes when it likes, in the order they started. */
function heldReads<T>() {
  const waiting: ((value: T) => void)[] = [];
  let started = 0;
  return {
    read: () => {
      started++;
      return new Promise<T>((resolve) => waiting.push(resolve));
    },
    started: () => started,
    finish: async (value: T) => {
      waiting.shift()?.(value);
      // The read's own continuations run before the next probe.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('promptReading', () => {
  it('answers the value read when it comes in time', async () => {
    const probe = promptReading(async () => 'ok', 'unknown', 60_000);
    expect(await probe()).toBe('ok');
  });

  it('answers the last value read while a read is stuck, with one read at a time', async () => {
    const reads = heldReads<string>();
    const probe = promptReading(reads.read, 'unknown', 1);
    expect(await probe()).toBe('unknown');
    expect(await probe()).toBe('unknown');
    expect(reads.started()).toBe(1);

    await reads.finish('lagging');
    expect(await probe()).toBe('lagging');
    expect(reads.started()).toBe(2);

    await reads.finish('ok');
    expect(await probe()).toBe('ok');
  });
});
