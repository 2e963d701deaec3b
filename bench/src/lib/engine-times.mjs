// The analytics engine's own time for the search mix and the statistics mix: the statements
// the server sends for each request, made by the server's own code (its built modules), run
// straight in the embedded engine on the server's data (chdb in a process of its own, the
// server stopped: one process owns a data dir) with the server's settings. Beside the same
// requests' times through HTTP, the difference is what the server adds: HTTP, the store's
// state read from PostgreSQL, the page's entries read from PostgreSQL, highlights, JSON.
//
// `engineTimes()` runs this file as a child process; the child prints its figures as JSON.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { latencies } from './measure.mjs';
import { SERVER_MAIN, SYSTEM_NODE } from './processes.mjs';

/** @import { Latencies } from './measure.mjs' */

/**
 * @typedef {object} EngineJob
 * @property {string} path the server's data dir
 * @property {string[]} searches search queries, each over the whole log, a page of 50
 * @property {{ query?: string, from: string, to: string, groupBy?: string[] }[]} stats statistics requests
 * @property {number} runs rounds of each, after one of warm-up
 */

/** @typedef {{ each: Latencies[], mix: Latencies }} EngineFigures */
/** @typedef {{ searches: EngineFigures, stats: EngineFigures, parts: number }} EngineResult */

/** @param {number[][]} samples per request */
const figures = (samples) => ({
  each: samples.map((s) => latencies(s)),
  mix: latencies(samples.flat()),
});

/**
 * @param {EngineJob} job
 * @returns {Promise<EngineResult>} the figures, and how many parts the table was in (the engine
 * merges inserts into fewer parts in the background; each part is read on its own)
 */
export async function engineTimes(job) {
  const { stdout } = await promisify(execFile)(
    SYSTEM_NODE,
    [fileURLToPath(import.meta.url), JSON.stringify(job)],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const samples = /** @type {{ searches: number[][], stats: number[][], parts: number }} */ (
    JSON.parse(stdout)
  );
  return {
    searches: figures(samples.searches),
    stats: figures(samples.stats),
    parts: samples.parts,
  };
}

/** A module of the built server (the same code the server runs). */
const serverModule = (/** @type {string} */ path) =>
  import(pathToFileURL(join(SERVER_MAIN, '..', path)).href);

/** @param {EngineJob} job */
async function main(job) {
  const [{ openAnalyticsStore }, { SearchStore }, { StatsStore }, { parseSearchQuery }] =
    await Promise.all([
      serverModule('storage/analytics/open-analytics-store.js'),
      serverModule('features/audit-log/analytics/search-store.js'),
      serverModule('features/audit-log/analytics/stats-store.js'),
      serverModule('features/audit-log/search/query.js'),
    ]);
  const [{ planBuckets }, { parseRange }, { loadConfig }] = await Promise.all([
    serverModule('features/audit-log/stats/buckets.js'),
    serverModule('features/audit-log/range.js'),
    serverModule('config.js'),
  ]);
  // The server's settings for a data dir, and the embedded engine whatever this process's env.
  const config = loadConfig({ SECADMIN_DATA_DIR: job.path });
  const store = await openAnalyticsStore(config.analytics);
  try {
    const timeoutMs = config.logScans.timeoutMs;
    const search = new SearchStore(store, timeoutMs);
    const stats = new StatsStore(store, timeoutMs);
    // As SearchService: the page (one more hit than the limit, for the cursor) and the count.
    const searches = job.searches.map((text) => {
      const query = parseSearchQuery(text);
      return () => Promise.all([search.hits(query, {}, undefined, 51), search.count(query, {})]);
    });
    // As StatsService: the buckets' plan, then one statement.
    const counts = job.stats.map((request) => {
      const { from, to } = parseRange(request.from, request.to);
      const query = request.query === undefined ? undefined : parseSearchQuery(request.query);
      const plan = planBuckets(from, to, 'auto');
      return () => stats.count({ query, from, to }, plan, request.groupBy ?? []);
    });
    /** @param {(() => Promise<unknown>)[]} calls */
    const timed = async (calls) => {
      for (const call of calls) await call();
      const samples = calls.map(() => /** @type {number[]} */ ([]));
      for (let round = 0; round < job.runs; round++) {
        for (const [k, call] of calls.entries()) {
          const started = performance.now();
          await call();
          samples[k]?.push(performance.now() - started);
        }
      }
      return samples;
    };
    const [{ parts }] = await store.query(
      `SELECT count() AS parts FROM system.parts
       WHERE database = {database:String} AND table = 'log_entries' AND active`,
      { database: store.database },
    );
    return { searches: await timed(searches), stats: await timed(counts), parts: Number(parts) };
  } finally {
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const job = /** @type {EngineJob} */ (JSON.parse(process.argv[2] ?? '{}'));
  process.stdout.write(JSON.stringify(await main(job)));
}
