import { performance } from 'node:perf_hooks';

const percentile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Calls `fn(i)` after a warm-up, up to `iterations` times or `budgetMs`; rate and latency percentiles. */
export function measureSync(
  fn,
  { iterations, warmup = Math.min(1000, iterations), budgetMs = 5000 },
) {
  for (let i = 0; i < warmup; i++) fn(i);
  const samples = [];
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    fn(i);
    samples.push(performance.now() - t);
    if (t - started > budgetMs) break;
  }
  const total = performance.now() - started;
  samples.sort((a, b) => a - b);
  return {
    count: samples.length,
    perSecond: samples.length / (total / 1000),
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    p99Ms: percentile(samples, 0.99),
  };
}

function latencies(samples) {
  samples.sort((a, b) => a - b);
  return {
    count: samples.length,
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    p99Ms: percentile(samples, 0.99),
  };
}

export async function measureAsync(fn, { runs, warmup = 2 }) {
  const [result] = await measureInterleavedAsync([fn], { runs, warmup });
  return result;
}

/**
 * Calls each of `fns` in turn, `runs` rounds, so that figures meant to be compared see
 * the same moments of a noisy machine; latency percentiles per function.
 */
export async function measureInterleavedAsync(fns, { runs, warmup = 2 }) {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn(i);
  const samples = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const t = performance.now();
      await fn(i);
      samples[k].push(performance.now() - t);
    }
  }
  return samples.map(latencies);
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
