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

/** @type {[kind: string, query: string][]} */
export const SEARCH_MIX = [
  ['common word', 'zephyr'],
  ['common word of the event', 'login'],
  ['rare word', 'pulsar'],
  ['word in two entries', 'magnetar'],
  ['absent word', 'xylophonist'],
  ['negation', 'zephyr -quasar'],
  ['phrase', '"suspicious login pattern"'],
  ['OR, rare', 'pulsar OR magnetar'],
  ['OR, common', 'Safari OR curl'],
  ['event: and negation', 'event:user.login -zephyr'],
  ['actor: email', 'actor:user42@example.com'],
  ['actor: id', 'actor:svc_backup'],
  ['ip:', 'ip:10.0.3.77'],
  ['ip: and word', 'ip:10.0.0.40 zephyr'],
  ['result:', 'result:failure'],
  ['result: and rare word', 'result:failure magnetar'],
];

/**
 * Each query of the mix in turn, `runs` rounds (after one round of warm-up): latencies per
 * query, over the whole mix, and each query's total.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {{ runs: number }} options
 */
export async function measureSearchMix(api, { runs }) {
  /** @param {string} query */
  const search = (query) =>
    /** @type {Promise<{ meta: { totalHits: number, totalHitsRelation: string } }>} */ (
      api('/v1/logs/search', { method: 'POST', body: JSON.stringify({ query, limit: 50 }) })
    );
  /** @type {string[]} */
  const totals = [];
  for (const [, query] of SEARCH_MIX) {
    const { meta } = await search(query);
    totals.push(`${meta.totalHitsRelation === 'gte' ? '≥ ' : ''}${meta.totalHits}`);
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
      hits: totals[k] ?? '',
      ...latencies(samples[k] ?? []),
    })),
  };
}

/**
 * A markdown table of two runs of the mix side by side.
 * @param {Awaited<ReturnType<typeof measureSearchMix>>} small
 * @param {Awaited<ReturnType<typeof measureSearchMix>>} large
 * @param {[small: string, large: string]} sizes
 */
export function searchMixTable(small, large, [smallSize, largeSize]) {
  /** @param {number} ms */
  const ms = (ms) => ms.toFixed(1);
  return [
    `Search mix, per query (p50 / p95 in ms, hits) at ${smallSize} and ${largeSize} entries:`,
    '',
    `| class | query | ${smallSize} | ${largeSize} | p95 ratio |`,
    '|---|---|---|---|---|',
    ...large.queries.map((q, k) => {
      const s = small.queries[k];
      if (!s) throw new Error('the two runs differ');
      return `| ${q.kind} | \`${q.query.replaceAll('|', '\\|')}\` | ${ms(s.p50Ms)} / ${ms(s.p95Ms)} (${s.hits}) | ${ms(q.p50Ms)} / ${ms(q.p95Ms)} (${q.hits}) | ${(q.p95Ms / s.p95Ms).toFixed(2)}× |`;
    }),
  ].join('\n');
}
