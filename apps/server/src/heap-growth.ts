import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what the last full collection left live, as a percentage
 * (its own reaches 300 % when collecting is cheap). The server's live heap is small and
 * most of what it allocates (ingest batches, export chunks) is garbage within a request; with
 * V8's factor that garbage piles up to several times the live heap before a full collection
 * (bench/results/findings.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Applies HEAP_GROWING_PERCENT unless the operator gave node one (`node
 * --heap-growing-percent=0 …` restores V8's own). V8 reads the factor at every full
 * collection, so it takes effect from the next one on.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  const chosen = execArgv.some((arg) => /^--heap[-_]growing[-_]percent/.test(arg));
  if (!chosen) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return !chosen;
}
