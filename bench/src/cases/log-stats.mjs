// The log statistics case's request mix: the histogram of a range alone, with facets, and
// with queries of each kind, each timed through the API.
import { latencies } from '../lib/measure.mjs';
import { SEARCH_MIX } from './search-mix.mjs';

/** @import { LogStats, LogStatsRequest } from '@secadmin/api-types' */
/** @import { Latencies } from '../lib/measure.mjs' */

/** How many of the generator's first `n` entries a query of the search mix finds. */
const hitsOf = (/** @type {string} */ query) => SEARCH_MIX.find(([, q]) => q === query)?.[2];

/**
 * The requests, and for some of them their total over a range that holds the generator's first
 * `n` entries (search-mix.mjs).
 * @type {[kind: string, body: Omit<LogStatsRequest, 'from' | 'to'>, total?: (n: number) => number][]}
 */
export const STATS_MIX = [
  ['histogram', {}],
  ['histogram, 3 facets', { groupBy: ['event', 'result', 'actor.type'] }],
  [
    'histogram, 6 facets',
    { groupBy: ['event', 'result', 'origin', 'actor.id', 'actor.type', 'target.type'] },
  ],
  [
    'common word, 3 facets',
    { query: 'zephyr', groupBy: ['event', 'result', 'actor.id'] },
    hitsOf('zephyr'),
  ],
  [
    'rare word, 3 facets',
    { query: 'pulsar', groupBy: ['event', 'result', 'actor.id'] },
    hitsOf('pulsar'),
  ],
  [
    'qualifier and negation, 2 facets',
    { query: 'event:user.login -zephyr', groupBy: ['result', 'actor.id'] },
  ],
  ['result:, 1 facet', { query: 'result:failure', groupBy: ['event'] }],
];

/**
 * Each request of the mix over `[from, to)` in turn, `runs` rounds after one of warm-up:
 * latencies over the whole mix, those without a query and with one, and each request's total.
 * Throws when a total is not the one the generator's first `entries` entries (all in the
 * range) give.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {{ from: string, to: string, runs: number, entries: number }} options
 */
export async function measureLogStats(api, { from, to, runs, entries }) {
  /** @param {Omit<LogStatsRequest, 'from' | 'to'>} body */
  const stats = (body) =>
    /** @type {Promise<{ data: LogStats }>} */ (
      api('/v1/logs/stats', { method: 'POST', body: JSON.stringify({ from, to, ...body }) })
    );
  /** @type {LogStats[]} */
  const answers = [];
  for (const [kind, body, total] of STATS_MIX) {
    const answer = (await stats(body)).data;
    const expected = total?.(entries);
    if (expected !== undefined && answer.total !== expected)
      throw new Error(
        `stats, ${kind}: ${answer.total} in all, where ${entries} entries hold ${expected}`,
      );
    answers.push(answer);
  }
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

/** @typedef {Awaited<ReturnType<typeof measureLogStats>>} LogStatsMix */

/**
 * A markdown table of the mix at each size, per request: p50 / p95 through HTTP and the
 * engine's own for its statement.
 * @param {{ size: string, http: LogStatsMix, engine: Latencies[] }[]} runs
 */
export function logStatsTable(runs) {
  /** @param {number} ms */
  const ms = (ms) => ms.toFixed(1);
  const first = runs[0];
  if (!first) throw new Error('no run of the mix');
  return [
    `Log statistics over 30 days holding the whole log, per request: p50 / p95 in ms through HTTP, and the engine's own (its statement run straight in chdb on the server's data), with the total, at ${runs.map((r) => r.size).join(' and ')} entries:`,
    '',
    `| request | query | groupBy | buckets | ${runs.map((r) => `${r.size}: HTTP | engine`).join(' | ')} |`,
    `|---|---|---|---|${runs.map(() => '---|---|').join('')}`,
    ...first.http.requests.map((r, k) => {
      const cells = runs.map((run) => {
        const http = run.http.requests[k];
        const engine = run.engine[k];
        if (!http || !engine) throw new Error('the runs differ');
        return `${ms(http.p50Ms)} / ${ms(http.p95Ms)} (${http.total.toLocaleString('en')}) | ${ms(engine.p50Ms)} / ${ms(engine.p95Ms)}`;
      });
      return `| ${r.kind} | ${r.body.query ? `\`${r.body.query}\`` : '—'} | ${r.body.groupBy?.join(', ') ?? '—'} | ${r.buckets} | ${cells.join(' | ')} |`;
    }),
  ].join('\n');
}
