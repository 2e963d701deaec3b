// The log statistics case's request mix: the histogram of a range alone, with facets, and
// with queries of each kind, each timed through the API.
import { latencies } from '../lib/measure.mjs';

/** @import { LogStats, LogStatsRequest } from '@secadmin/api-types' */
/** @import { Latencies } from '../lib/measure.mjs' */

/** @type {[kind: string, body: Omit<LogStatsRequest, 'from' | 'to'>][]} */
export const STATS_MIX = [
  ['histogram', {}],
  ['histogram, 3 facets', { groupBy: ['event', 'result', 'actor.type'] }],
  [
    'histogram, 6 facets',
    { groupBy: ['event', 'result', 'origin', 'actor.id', 'actor.type', 'target.type'] },
  ],
  ['common word, 3 facets', { query: 'zephyr', groupBy: ['event', 'result', 'actor.id'] }],
  ['rare word, 3 facets', { query: 'pulsar', groupBy: ['event', 'result', 'actor.id'] }],
  [
    'qualifier and negation, 2 facets',
    { query: 'event:user.login -zephyr', groupBy: ['result', 'actor.id'] },
  ],
  ['result:, 1 facet', { query: 'result:failure', groupBy: ['event'] }],
];

/**
 * Each request of the mix over `[from, to)` in turn, `runs` rounds after one of warm-up:
 * latencies over the whole mix, those without a query and with one, and each request's total.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {{ from: string, to: string, runs: number }} options
 */
export async function measureLogStats(api, { from, to, runs }) {
  /** @param {Omit<LogStatsRequest, 'from' | 'to'>} body */
  const stats = (body) =>
    /** @type {Promise<{ data: LogStats }>} */ (
      api('/v1/logs/stats', { method: 'POST', body: JSON.stringify({ from, to, ...body }) })
    );
  /** @type {LogStats[]} */
  const answers = [];
  for (const [, body] of STATS_MIX) answers.push((await stats(body)).data);
  const samples = STATS_MIX.map(() => /** @type {number[]} */ ([]));
  for (let round = 0; round < runs; round++) {
    for (const [k, [, body]] of STATS_MIX.entries()) {
      const t = performance.now();
      await stats(body);
      samples[k]?.push(performance.now() - t);
    }
  }
  const withQuery = STATS_MIX.flatMap(([, body], k) => (body.query ? (samples[k] ?? []) : []));
  const withoutQuery = STATS_MIX.flatMap(([, body], k) => (body.query ? [] : (samples[k] ?? [])));
  /** @type {{ mix: Latencies, withQuery: Latencies, withoutQuery: Latencies }} */
  const result = {
    mix: latencies(samples.flat()),
    withQuery: latencies(withQuery),
    withoutQuery: latencies(withoutQuery),
  };
  return {
    ...result,
    requests: STATS_MIX.map(([kind, body], k) => ({
      kind,
      body,
      total: answers[k]?.total ?? 0,
      buckets: `${answers[k]?.buckets.length} × ${answers[k]?.interval}`,
      ...latencies(samples[k] ?? []),
    })),
  };
}

/**
 * A markdown table of the mix, per request.
 * @param {Awaited<ReturnType<typeof measureLogStats>>} measured
 * @param {string} size
 */
export function logStatsTable(measured, size) {
  /** @param {number} ms */
  const ms = (ms) => ms.toFixed(1);
  return [
    `Log statistics over 30 days of ${size} entries, per request (p50 / p95 in ms):`,
    '',
    '| request | query | groupBy | total | buckets | p50 / p95 |',
    '|---|---|---|---|---|---|',
    ...measured.requests.map(
      (r) =>
        `| ${r.kind} | ${r.body.query ? `\`${r.body.query}\`` : '—'} | ${r.body.groupBy?.join(', ') ?? '—'} | ${r.total.toLocaleString('en')} | ${r.buckets} | ${ms(r.p50Ms)} / ${ms(r.p95Ms)} |`,
    ),
  ].join('\n');
}
