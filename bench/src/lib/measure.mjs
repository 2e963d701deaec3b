import { performance } from 'node:perf_hooks';

/**
 * One line of the results table (and of latest.json).
 * @typedef {object} Row
 * @property {string} case
 * @property {string} peer
 * @property {string} secadmin
 * @property {string} peerFigure
 * @property {number | null} ratio secadmin ÷ peer; null where there is no peer figure
 * @property {string} target
 * @property {boolean} met
 * @property {Record<string, unknown>} [detail] the raw figures behind the line
 */

/** @typedef {{ count: number, p50Ms: number, p95Ms: number, p99Ms: number, maxMs: number }} Latencies */

/**
 * `list[i]`, wrapping around past the end.
 * @template T
 * @param {readonly T[]} list not empty
 * @param {number} i
 * @returns {T}
 */
export function cyclic(list, i) {
  const item = list[i % list.length];
  if (item === undefined) throw new RangeError('cyclic: empty list');
  return item;
}

/**
 * @param {number[]} sorted
 * @param {number} q
 */
const percentile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/**
 * Rate and latency percentiles of `samples` (ms per call) taken over `totalMs`.
 * @param {number[]} samples
 * @param {number} totalMs
 */
function syncFigures(samples, totalMs) {
  samples.sort((a, b) => a - b);
  return {
    count: samples.length,
    perSecond: samples.length / (totalMs / 1000),
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    p99Ms: percentile(samples, 0.99),
  };
}

/**
 * Calls `fn(i)` after a warm-up, up to `iterations` times or `budgetMs`; rate and latency percentiles.
 * @param {(i: number) => unknown} fn
 * @param {{ iterations: number, warmup?: number, budgetMs?: number }} options
 */
export function measureSync(
  fn,
  { iterations, warmup = Math.min(1000, iterations), budgetMs = 5000 },
) {
  for (let i = 0; i < warmup; i++) fn(i);
  /** @type {number[]} */
  const samples = [];
  const started = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    fn(i);
    samples.push(performance.now() - t);
    if (t - started > budgetMs) break;
  }
  return syncFigures(samples, performance.now() - started);
}

/**
 * `measureSync` of each of `fns`, in `rounds` alternating blocks of their iterations: figures
 * meant to be compared share the same moments of a noisy machine (a burst of another process,
 * a collection, the compiler's work), where one run after the other can differ twofold.
 * @template {readonly ((i: number) => unknown)[] | []} F
 * @param {F} fns
 * @param {{ iterations: number, rounds?: number }} options
 * @returns {{ -readonly [K in keyof F]: ReturnType<typeof syncFigures> }}
 */
export function measureSyncInterleaved(fns, { iterations, rounds = 10 }) {
  for (const fn of fns) for (let i = 0; i < Math.min(1000, iterations); i++) fn(i);
  const timed = fns.map((fn) => ({ fn, samples: /** @type {number[]} */ ([]), ms: 0 }));
  const block = Math.ceil(iterations / rounds);
  for (let round = 0; round < rounds; round++) {
    // In turn first: what one block leaves behind (garbage, compiled code) lands on the other.
    for (const t of round % 2 === 0 ? timed : [...timed].reverse()) {
      const started = performance.now();
      for (let i = round * block; i < (round + 1) * block; i++) {
        const s = performance.now();
        t.fn(i);
        t.samples.push(performance.now() - s);
      }
      t.ms += performance.now() - started;
    }
  }
  // One figure per function, in order: the tuple type F maps to.
  return /** @type {{ -readonly [K in keyof F]: ReturnType<typeof syncFigures> }} */ (
    timed.map(({ samples, ms }) => syncFigures(samples, ms))
  );
}

/**
 * @param {number[]} samples
 * @returns {Latencies}
 */
export function latencies(samples) {
  samples.sort((a, b) => a - b);
  return {
    count: samples.length,
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    p99Ms: percentile(samples, 0.99),
    maxMs: samples[samples.length - 1] ?? Number.NaN,
  };
}

/**
 * @param {(i: number) => Promise<unknown>} fn
 * @param {{ runs: number, warmup?: number }} options
 */
export async function measureAsync(fn, { runs, warmup = 2 }) {
  const [result] = await measureInterleavedAsync([fn], { runs, warmup });
  return result;
}

/**
 * Calls each of `fns` in turn, `runs` rounds, so that figures meant to be compared see
 * the same moments of a noisy machine; latency percentiles per function.
 * @template {readonly ((i: number) => Promise<unknown>)[] | []} F
 * @param {F} fns
 * @param {{ runs: number, warmup?: number }} options
 * @returns {Promise<{ -readonly [K in keyof F]: Latencies }>}
 */
export async function measureInterleavedAsync(fns, { runs, warmup = 2 }) {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn(i);
  const timed = fns.map((fn) => ({ fn, samples: /** @type {number[]} */ ([]) }));
  for (let i = 0; i < runs; i++) {
    for (const { fn, samples } of timed) {
      const t = performance.now();
      await fn(i);
      samples.push(performance.now() - t);
    }
  }
  // One figure per function, in order: the tuple type F maps to.
  return /** @type {{ -readonly [K in keyof F]: Latencies }} */ (
    timed.map(({ samples }) => latencies(samples))
  );
}

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
