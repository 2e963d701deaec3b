import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long one synchronous slice of a request's work may hold the event loop. */
const SLICE_MS = 5;

/**
 * `items.map(map)`, in slices of at most about `SLICE_MS` between which the event loop serves
 * other requests: for per-item work that is bounded but may add up over a large page.
 */
export async function mapInSlices<T, U>(items: readonly T[], map: (item: T) => U): Promise<U[]> {
  const results: U[] = [];
  let sliceStarted = performance.now();
  for (const item of items) {
    if (performance.now() - sliceStarted >= SLICE_MS) {
      await nextTurn();
      sliceStarted = performance.now();
    }
    results.push(map(item));
  }
  return results;
}
