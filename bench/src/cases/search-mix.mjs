// The search case's query mix: one query per class (common, rare, absent, negation, phrase,
// OR, each qualifier), each timed through the API, at two sizes of the same log.
import { latencies } from '../lib/measure.mjs';

/** @import { Latencies } from '../lib/measure.mjs' */

/**
 * Words the entry generator adds to entry `i`'s metadata, so that each class has its query:
 * zephyr in 1 of 10 entries, quasar in 1 of 50, pulsar in 1 of 10,007, magnetar in two.
 * @param {number} i
 */
export function searchWords(i) {
  const words = [];
  if (i % 10 === 0) words.push('zephyr');
  if (i % 100 === 0 || i % 100 === 3) words.push('quasar');
  if (i % 10_007 === 5) words.push('pulsar');
  if (i === 1234 || i === 56_789) words.push('magnetar');
  return words;
}

/** How many of the entries `i` < `n` hold `i % every === at`. */
const every = (/** @type {number} */ n, /** @type {number} */ step, at = 0) =>
  n > at ? Math.floor((n - 1 - at) / step) + 1 : 0;
const magnetars = (/** @type {number} */ n) => [1234, 56_789].filter((i) => i < n).length;

/**
 * The queries, and for some of them how many of the generator's first `n` entries they find
 * (`audit-log.mjs`: the service account acts in 1 of 50, entry `i`'s IP is `i`'s low bytes, no
 * entry holding magnetar failed): an answer that finds another number did not read the whole log.
 * @type {[kind: string, query: string, hits?: (n: number) => number][]}
 */
export const SEARCH_MIX = [
  ['common word', 'zephyr', (n) => every(n, 10)],
  ['common word of the event', 'login'],
  ['rare word', 'pulsar', (n) => every(n, 10_007, 5)],
  ['word in two entries', 'magnetar', magnetars],
  ['absent word', 'xylophonist', () => 0],
  ['negation', 'zephyr -quasar'],
  ['phrase', '"suspicious login pattern"'],
  ['OR, rare', 'pulsar OR magnetar', (n) => every(n, 10_007, 5) + magnetars(n)],
  ['OR, common', 'Safari OR curl'],
  ['event: and negation', 'event:user.login -zephyr'],
  ['actor: email', 'actor:user42@example.com'],
  ['actor: id', 'actor:svc_backup', (n) => every(n, 50)],
  ['ip:', 'ip:10.0.3.77', (n) => (n > 3 * 256 + 77 ? 1 : 0)],
  ['ip: and word', 'ip:10.0.0.40 zephyr', (n) => (n > 40 ? 1 : 0)],
  ['result:', 'result:failure'],
  ['result: and rare word', 'result:failure magnetar', () => 0],
];

/**
 * Each query of the mix in turn, `runs` rounds (after one round of warm-up): latencies per
 * query, over the whole mix, and each query's total. Throws when a total is not the one the
 * generator's first `entries` entries give.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {{ runs: number, entries: number }} options
 */
export async function measureSearchMix(api, { runs, entries }) {
  /** @param {string} query */
  const search = (query) =>
    /** @type {Promise<{ meta: { totalHits: number } }>} */ (
      api('/v1/logs/search', { method: 'POST', body: JSON.stringify({ query, limit: 50 }) })
    );
  /** @type {number[]} */
  const totals = [];
  for (const [, query, hits] of SEARCH_MIX) {
    const { meta } = await search(query);
    const expected = hits?.(entries);
    if (expected !== undefined && meta.totalHits !== expected)
      throw new Error(
        `search ${query}: ${meta.totalHits} hits, where ${entries} entries hold ${expected}`,
      );
    totals.push(meta.totalHits);
  }
  const samples = SEARCH_MIX.map(() => /** @type {number[]} */ ([]));
  for (let round = 0; round < runs; round++) {
    for (const [k, [, query]] of SEARCH_MIX.entries()) {
      const t = performance.now();
      await search(query);
      samples[k]?.push(performance.now() - t);
    }
  }
  /** @type {Latencies} */
  const mix = latencies(samples.flat());
  return {
    mix,
    queries: SEARCH_MIX.map(([kind, query], k) => ({
      kind,
      query,
      hits: totals[k] ?? 0,
      ...latencies(samples[k] ?? []),
    })),
  };
}

/** @typedef {Awaited<ReturnType<typeof measureSearchMix>>} SearchMix */

/**
 * A markdown table of two runs of the mix side by side, each query's HTTP time beside the
 * engine's own time for its statements.
 * @param {{ size: string, http: SearchMix, engine: Latencies[] }[]} runs
 */
export function searchMixTable(runs) {
  /** @param {number} ms */
  const ms = (ms) => ms.toFixed(1);
  const [first, last] = [runs[0], runs[runs.length - 1]];
  if (!first || !last) throw new Error('no run of the mix');
  return [
    `Search mix, per query: p50 / p95 in ms through HTTP, and the engine's own (its two statements run straight in chdb on the server's data), with hits, at ${runs.map((r) => r.size).join(' and ')} entries:`,
    '',
    `| class | query | ${runs.map((r) => `${r.size}: HTTP | engine`).join(' | ')} | HTTP p95 growth |`,
    `|---|---|${runs.map(() => '---|---|').join('')}---|`,
    ...first.http.queries.map((q, k) => {
      const cells = runs.map((r) => {
        const http = r.http.queries[k];
        const engine = r.engine[k];
        if (!http || !engine) throw new Error('the runs differ');
        return `${ms(http.p50Ms)} / ${ms(http.p95Ms)} (${http.hits.toLocaleString('en')}) | ${ms(engine.p50Ms)} / ${ms(engine.p95Ms)}`;
      });
      const growth = (last.http.queries[k]?.p95Ms ?? Number.NaN) / q.p95Ms;
      return `| ${q.kind} | \`${q.query.replaceAll('|', '\\|')}\` | ${cells.join(' | ')} | ${growth.toFixed(2)}× |`;
    }),
  ].join('\n');
}
