import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what the last full collection left live, as a percentage.
 * With a large heap limit V8 picks up to 300 % when collecting is cheap; the server's live heap
 * is small and most of what it allocates (ingest batches, export chunks) is garbage within a
 * request, so that garbage piled up to several times the live heap before a full collection
 * (bench/results/findings.md, "Garbage, not a live set").
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Below this heap limit (a container's memory limit, `--max-old-space-size`) V8's own factor is
 * already small, and a fixed one would let the heap grow faster than V8 would.
 */
export const LARGE_HEAP_LIMIT_BYTES = 2 * 1024 ** 3;

/**
 * Applies HEAP_GROWING_PERCENT when the heap limit is large, unless node was given a growing
 * factor (`node --heap-growing-percent=0 …` keeps V8's own; NODE_OPTIONS cannot carry it).
 * V8 reads the factor at every full collection, so it takes effect from the next one on.
 */
export function boundHeapGrowth({
  execArgv = process.execArgv,
  heapLimit = getHeapStatistics().heap_size_limit,
  setFlags = setFlagsFromString,
}: {
  execArgv?: readonly string[];
  heapLimit?: number;
  setFlags?: (flags: string) => void;
} = {}): boolean {
  const chosen = execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg));
  const applies = !chosen && heapLimit >= LARGE_HEAP_LIMIT_BYTES;
  if (applies) setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return applies;
}
