// The audit log at scale: ingest with sealing vs COPY, the seal lag and the searchable lag under
// that load, the chain's verify throughput, search (a query mix) and log statistics over 30 days
// at two sizes of the same log through HTTP beside the analytics engine's own time for the same
// statements, a filtered list at page 1 and deep (cursors) vs OFFSET, CSV export vs COPY TO,
// the feed of the analytics store, peak server memory.
//
// The first `BENCH_AUDIT_LOG_API_ENTRIES` entries (1,000,000) go through the API; the log then
// grows to `BENCH_AUDIT_LOG_ENTRIES` (10,000,000) by COPY into PostgreSQL with the server
// stopped (lib/bulk-load.mjs), and the restarted server's feeder copies them to the store.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { bulkId, bulkLoad } from '../lib/bulk-load.mjs';
import { cpuMeter, cpuWhile } from '../lib/cpu-time.mjs';
import { engineTimes } from '../lib/engine-times.mjs';
import { cyclic, latencies, measureInterleavedAsync } from '../lib/measure.mjs';
import { freshDatabase, startSecadmin } from '../lib/processes.mjs';
import { searchableLagProbe, searchIndexState, untilSearchable } from '../lib/searchable.mjs';
import { logStatsTable, measureLogStats, STATS_MIX } from './log-stats.mjs';
import { measureSearchMix, SEARCH_MIX, searchMixTable, searchWords } from './search-mix.mjs';

/** @import { components, Export, Pagination } from '@secadmin/api-types' */
/** @import { Latencies, Row } from '../lib/measure.mjs' */

const EVENTS = [
  'user.login',
  'user.logout',
  'user.password_reset.failed',
  'file.download',
  'policy.updated',
  'session.expired',
];
/** @type {[city: string, country: string][]} */
const CITIES = [
  ['Berlin', 'DE'],
  ['Paris', 'FR'],
  ['Austin', 'US'],
  ['Osaka', 'JP'],
  ['Lagos', 'NG'],
];
const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
  'Mozilla/5.0 (Macintosh) Safari/19.1',
  'curl/8.5.0',
  'okhttp/5.0',
];
const START = Date.parse('2025-01-01T00:00:00Z');
const DAY_MS = 86_400_000;
/** The statistics' range: 30 days from START, which hold the whole log. */
const STATS_DAYS = 30;

/** Each user has ~200 entries of the whole log; one service account acts in 1 of 50. */
let users = 5000;
/** One entry a second, closer when the log would not fit in the statistics' 30 days. */
let spacingMs = 1000;
/**
 * The benchmark's entry number `i`: one every `spacingMs` from 2025-01-01, every class of
 * search word.
 * @param {number} i
 */
export function entry(i) {
  const [city, country] = cyclic(CITIES, i);
  const user = i % users;
  const actor =
    i % 50 === 0
      ? { id: 'svc_backup', type: 'service' }
      : { id: `user_${user}`, email: `user${user}@example.com`, type: 'user' };
  return {
    event: cyclic(EVENTS, i),
    actor,
    target: { id: `res_${i % 777}`, type: 'document' },
    context: {
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      userAgent: cyclic(AGENTS, i),
      location: { city, country },
    },
    result: i % 11 === 0 ? 'failure' : 'success',
    timestamp: new Date(START + i * spacingMs).toISOString(),
    metadata: {
      requestNo: i,
      note: [...searchWords(i), i % 13 === 0 ? 'suspicious login pattern' : 'routine'].join(' '),
    },
  };
}

/** @param {unknown} v */
const csvCell = (v) =>
  v === null || v === undefined
    ? ''
    : /[",\n]/.test(String(v))
      ? `"${String(v).replaceAll('"', '""')}"`
      : String(v);
/**
 * Entry `i` as the columns COPY writes after its id (what the server records of an ingested
 * entry, provenance included, so COPY writes as much).
 * @param {number} i
 */
function entryCells(i) {
  const e = entry(i);
  return [
    e.timestamp,
    e.event,
    e.actor.id,
    e.actor.email,
    e.actor.type,
    e.target.id,
    e.target.type,
    e.context.ip,
    e.context.userAgent,
    e.context.location.city,
    e.context.location.country,
    e.result,
    JSON.stringify(e.metadata),
    'api',
    'key_bench',
    e.timestamp,
  ];
}
/** @param {number} i */
const copyRow = (i) => [`log_copy_${i}`, ...entryCells(i)].map(csvCell).join(',');
/** Entry `i` as the bulk load writes it (lib/bulk-load.mjs), with empty digests and salts. */
const bulkRow = (/** @type {number} */ i) =>
  [bulkId(i), ...entryCells(i), '{}', '{}'].map(csvCell).join(',');

/**
 * Ingest through the API as a busy client does: batches of 1,000 entries (`entry(i)` in
 * order), four in flight. Each call sends the entries up to `until` that no earlier call sent;
 * `onAck` hears each batch's acknowledgement time (the client's clock) and ids.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {(ack: { at: number, ids: string[] }) => void} [onAck]
 */
export function ingestInBatches(api, onAck = () => {}) {
  let next = 0;
  return (/** @type {number} */ until) =>
    Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < until) {
          const from = next;
          const count = Math.min(1000, until - from);
          next += count;
          const entries = Array.from({ length: count }, (_, k) => entry(from + k));
          const acked = /** @type {{ data: { id: string }[] }} */ (
            await api('/v1/logs', { method: 'POST', body: JSON.stringify({ entries }) })
          );
          onAck({ at: Date.now(), ids: acked.data.map((a) => a.id) });
        }
      }),
    );
}

/** @typedef {Awaited<ReturnType<typeof startSecadmin>>} Server */
/** @typedef {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} Api */

/** @param {number} n */
const count = (n) => n.toLocaleString('en');
/** @param {number} n */
const perSecond = (n) => `${count(Math.round(n))}/s`;

/** A line on the console while a full run goes on (it takes the better part of an hour). */
let progress = (/** @type {string} */ _message) => {};

/**
 * CPU of the server process (all its threads: the embedded engine's too) and of the
 * PostgreSQL backends of its database: on a machine shared with other work, CPU per entry
 * says more than a rate.
 * @param {Server} server
 * @param {pg.Client} db
 */
function serverCpu(server, db) {
  return cpuMeter(server.pid ?? 0, async () =>
    (
      await db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')
    ).rows.map((r) => r.pid),
  );
}

/** @param {import('../lib/cpu-time.mjs').CpuSpent} cpu @param {number} entries */
const cpuPerEntry = (cpu, entries) =>
  `server ${(cpu.serverNs / entries / 1000).toFixed(0)} µs, PostgreSQL ${(cpu.backendsNs / entries / 1000).toFixed(0)} µs of CPU per entry`;

/** The machine's load average over the last minute, with its cores: how shared it was. */
const load = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`;

/**
 * The search and statistics mixes through HTTP (the statistics over the 30 days that hold the
 * whole log of `entries` generated entries).
 * @param {Api} api
 * @param {{ entries: number, runs: number }} options
 */
async function measureMixes(api, { entries, runs }) {
  const search = await measureSearchMix(api, { runs, entries });
  const stats = await measureLogStats(api, {
    from: new Date(START).toISOString(),
    to: new Date(START + STATS_DAYS * DAY_MS).toISOString(),
    runs,
    entries,
  });
  return { search, stats };
}

/**
 * The same requests' statements straight in the engine, on the data dir of a stopped server.
 * @param {string} dataDir
 * @param {number} runs
 */
function measureEngine(dataDir, runs) {
  return engineTimes({
    path: dataDir,
    searches: SEARCH_MIX.map(([, query]) => query),
    stats: STATS_MIX.map(([, body]) => ({
      ...body,
      from: new Date(START).toISOString(),
      to: new Date(START + STATS_DAYS * DAY_MS).toISOString(),
    })),
    runs,
  });
}

/** @param {Latencies} l */
const p50p95 = (l) => `p50 ${l.p50Ms.toFixed(1)} ms, p95 ${l.p95Ms.toFixed(1)} ms`;

/**
 * Ingest through the API (batches of 1,000, four in flight) while a probe measures how soon an
 * acknowledged entry is searchable; then the seal lag of every entry.
 * @param {Server} server
 * @param {pg.Client} db
 * @param {number} total
 * @returns {Promise<{ rows: Row[], rate: number, cpu: string, rssMb: number, peakMb: number }>}
 */
async function ingestWithLags(server, db, total) {
  /** @type {{ at: number, ids: string[] }[]} */
  const acks = [];
  const probe = searchableLagProbe(server.api, {
    everyMs: 100,
    at: (k) => new Date(START + k).toISOString(),
  });
  const cpuSpent = await cpuWhile(serverCpu(server, db));
  const loadBefore = load();
  const t0 = performance.now();
  await ingestInBatches(server.api, (ack) => acks.push(ack))(total);
  const rate = total / ((performance.now() - t0) / 1000);
  const cpu = `${cpuPerEntry(await cpuSpent.stop(), total)}; ${loadBefore} before, ${load()} after`;
  const rssMb = server.rssMb();
  const peakMb = server.peakRssMb();
  const probeLags = latencies(await probe.stop());
  /** @type {Row[]} */
  const rows = [];

  // Sealing kept up with that load: from each batch's acknowledgement (the client's clock,
  // the same machine's) to each of its entries' sealed_at.
  await untilSearchable(server.api, db);
  const lags = new Float64Array(total);
  let counted = 0;
  for (const ack of acks) {
    const sealed = await db.query(
      'SELECT extract(epoch FROM sealed_at)::float8 * 1000 AS ms FROM log_chain WHERE entry_id = ANY($1::text[])',
      [ack.ids],
    );
    for (const { ms } of sealed.rows) lags[counted++] = Math.max(0, ms - ack.at);
  }
  const sortedLags = lags.subarray(0, counted).sort();
  const lagMs = (/** @type {number} */ q) => sortedLags[Math.floor((counted - 1) * q)] ?? 0;
  rows.push({
    case: `seal lag after acknowledgement, during that ingest (${count(counted)} entries)`,
    peer: '—',
    secadmin: `p50 ${lagMs(0.5).toFixed(0)} ms, p99 ${lagMs(0.99).toFixed(0)} ms, max ${lagMs(1).toFixed(0)} ms`,
    peerFigure: '—',
    ratio: null,
    target: 'p99 < 1 s',
    met: lagMs(0.99) < 1000,
  });
  rows.push({
    case: `searchable after acknowledgement, during that ingest (${probeLags.count} probes, one entry every 100 ms, searched for until found)`,
    peer: '—',
    secadmin: `p50 ${probeLags.p50Ms.toFixed(0)} ms, p99 ${probeLags.p99Ms.toFixed(0)} ms, max ${probeLags.maxMs.toFixed(0)} ms`,
    peerFigure: '—',
    ratio: null,
    target: 'p99 < 2 s',
    met: probeLags.p99Ms < 2000,
    detail: { probeLags },
  });
  return { rows, rate, cpu, rssMb, peakMb };
}

/**
 * The chain's verify over HTTP, and `/healthz` one request after another while it walks.
 * @param {Server} server
 * @param {number} total
 * @returns {Promise<Row[]>}
 */
async function verifyRows(server, total) {
  /** @type {number[]} */
  const health = [];
  let verifying = true;
  const probe = (async () => {
    while (verifying) {
      const started = performance.now();
      await (await fetch(`${server.base}/healthz`)).arrayBuffer();
      health.push(performance.now() - started);
    }
  })();
  const t0 = performance.now();
  const verdict = /** @type {{ data: { valid: boolean, checkedEntries: number } }} */ (
    await server.api('/v1/logs/verify', { method: 'POST', body: '{}' }).finally(() => {
      verifying = false;
    })
  ).data;
  const verifyRate = verdict.checkedEntries / ((performance.now() - t0) / 1000);
  await probe;
  const healthDuring = latencies(health);
  if (!verdict.valid || verdict.checkedEntries < total)
    throw new Error(`verify: ${JSON.stringify(verdict)}`);
  return [
    {
      case: `verify the chain, ${count(verdict.checkedEntries)} entries`,
      peer: '—',
      secadmin: `${count(Math.round(verifyRate))} entries/s`,
      peerFigure: '—',
      ratio: null,
      target: 'valid, whole chain',
      met: verdict.valid,
    },
    {
      case: `/healthz while verify walks ${count(verdict.checkedEntries)} entries (${healthDuring.count} requests, one at a time)`,
      peer: '—',
      secadmin: `p50 ${healthDuring.p50Ms.toFixed(1)} ms, p99 ${healthDuring.p99Ms.toFixed(1)} ms`,
      peerFigure: '—',
      ratio: null,
      target: 'p99 < 100 ms',
      met: healthDuring.p99Ms < 100,
    },
  ];
}

/**
 * The same rows through COPY: into a table with only the primary key (the ingest's peer),
 * and for reference into an identical one (same indexes).
 * @param {pg.Client} db
 * @param {string} scratch
 * @param {number} total
 */
async function copyRates(db, scratch, total) {
  const file = join(scratch, 'rows.csv');
  await writeFile(file, `${Array.from({ length: total }, (_, i) => copyRow(i)).join('\n')}\n`);
  /** @param {string} like */
  const copyRate = async (like) => {
    await db.query(`CREATE TABLE log_entries_copy (${like})`);
    if (!like.includes('INCLUDING ALL'))
      await db.query('ALTER TABLE log_entries_copy ADD PRIMARY KEY (id)');
    const started = performance.now();
    await pipeline(
      createReadStream(file),
      db.query(
        copyFrom(
          'COPY log_entries_copy (id, timestamp, event, actor_id, actor_email, actor_type, target_id, target_type, ip, user_agent, city, country, result, metadata, origin, ingested_by, received_at) FROM STDIN WITH CSV',
        ),
      ),
    );
    const rate = total / ((performance.now() - started) / 1000);
    await db.query('DROP TABLE log_entries_copy');
    return rate;
  };
  const primaryKeyOnly = await copyRate('LIKE log_entries INCLUDING DEFAULTS');
  const identical = await copyRate('LIKE log_entries INCLUDING ALL');
  await rm(file);
  return { primaryKeyOnly, identical };
}

/**
 * Filtered list: page 1 vs a deep page reached through cursors, vs OFFSET. The service
 * account's entries: 1 in 50, so page 1,000 exists at 10 a page.
 * @param {Server} server
 * @param {pg.Client} db
 * @param {boolean} smoke
 * @returns {Promise<Row>}
 */
async function listRow(server, db, smoke) {
  const query =
    'actor=svc_backup&events=user.login,user.logout,file.download,session.expired,user.password_reset.failed,policy.updated';
  const pageSize = smoke ? 1 : 10;
  const depth = smoke ? 20 : 1000;
  /** @type {string | undefined} */
  let cursor;
  for (let page = 1; page < depth; page++) {
    const data = /** @type {{ pagination: Pagination }} */ (
      await server.api(`/v1/logs?${query}&limit=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`)
    );
    cursor = data.pagination.nextCursor;
  }
  const [first, deep, offset] = await measureInterleavedAsync(
    [
      () => server.api(`/v1/logs?${query}&limit=${pageSize}`),
      () => server.api(`/v1/logs?${query}&limit=${pageSize}&cursor=${cursor}`),
      () =>
        db.query(
          `SELECT * FROM log_entries WHERE actor_id = 'svc_backup' ORDER BY timestamp DESC, id DESC LIMIT ${pageSize} OFFSET ${(depth - 1) * pageSize}`,
        ),
    ],
    { runs: 30 },
  );
  return {
    case: `filtered list (actor + events), page 1 vs page ${depth}`,
    peer: `OFFSET ${(depth - 1) * pageSize} in SQL`,
    secadmin: `page 1 p50 ${first.p50Ms.toFixed(2)} ms, page ${depth} p50 ${deep.p50Ms.toFixed(2)} ms`,
    peerFigure: `p50 ${offset.p50Ms.toFixed(2)} ms`,
    ratio: deep.p50Ms / first.p50Ms,
    target: 'page N within ±20 % of page 1',
    met: deep.p50Ms <= first.p50Ms * 1.2,
  };
}

/**
 * Export: CSV of everything until completed, vs COPY … TO STDOUT, on the server that ingested
 * the log (issue 13): its RSS is sampled while the export runs, against its RSS just before.
 * @param {Server} server
 * @param {pg.Client} db
 * @returns {Promise<Row>}
 */
async function exportRow(server, db) {
  const before = server.rssMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, server.rssMb());
  }, 50);
  const t0 = performance.now();
  const created = /** @type {{ data: components['schemas']['ExportCreated'] }} */ (
    await server.api('/v1/logs/export', {
      method: 'POST',
      body: JSON.stringify({ from: '2000-01-01', to: '2100-01-01', format: 'csv' }),
    })
  );
  /** @type {Export} */
  let state;
  do {
    await new Promise((r) => setTimeout(r, 100));
    state = /** @type {{ data: Export }} */ (
      await server.api(`/v1/logs/export/${created.data.exportId}`)
    ).data;
  } while (state.status === 'processing');
  clearInterval(sampler);
  const { totalRecords } = state;
  if (state.status !== 'completed' || totalRecords === undefined)
    throw new Error(`export ${created.data.exportId} ${state.status}: ${state.error ?? ''}`);
  const exportRate = totalRecords / ((performance.now() - t0) / 1000);
  const t1 = performance.now();
  let copiedBytes = 0;
  for await (const chunk of db.query(
    copyTo('COPY (SELECT * FROM log_entries ORDER BY timestamp DESC, id DESC) TO STDOUT WITH CSV'),
  ))
    copiedBytes += chunk.length;
  const copyOutRate = totalRecords / ((performance.now() - t1) / 1000);
  const added = peak - before;
  return {
    case: `export CSV, ${count(totalRecords)} entries`,
    peer: 'COPY … TO STDOUT WITH CSV',
    secadmin: `${count(Math.round(exportRate))} rows/s; server RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB during it (+${added.toFixed(0)} MB)`,
    peerFigure: `${count(Math.round(copyOutRate))} rows/s (${(copiedBytes / 1e6).toFixed(0)} MB)`,
    ratio: exportRate / copyOutRate,
    target: '≥ 0.6× COPY; adds < 150 MB to RSS',
    met: exportRate >= 0.6 * copyOutRate && added < 150,
  };
}

/**
 * The log grows from `from` to `to` entries by COPY with the server stopped, then the
 * restarted server feeds the store: how long until the store holds the chain's head.
 * @param {pg.Client} db
 * @param {{ from: number, to: number, restart: () => Promise<Server> }} options
 */
async function growByBulk(db, { from, to, restart }) {
  const head = Number(
    (await db.query('SELECT coalesce(max(seq), 0)::float8 AS seq FROM log_chain')).rows[0].seq,
  );
  const t0 = performance.now();
  await bulkLoad(db, { from, to, firstSeq: head + 1, csvRow: bulkRow });
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const server = await restart();
  const readyMs = performance.now() - t1;
  const cpuSpent = await cpuWhile(serverCpu(server, db));
  const target = head + (to - from);
  while ((await searchIndexState(server.api)).indexedThroughSeq < target)
    await new Promise((r) => setTimeout(r, 50));
  const feedMs = performance.now() - t1;
  const cpu = `after /readyz ${cpuPerEntry(await cpuSpent.stop(), to - from)}; ${load()}`;
  return { server, loadMs, readyMs, feedMs, cpu };
}

/** @param {{ smoke: boolean, adminUrl: string }} options */
export async function auditLogCases({ smoke, adminUrl }) {
  const total = smoke ? 3000 : Number(process.env.BENCH_AUDIT_LOG_API_ENTRIES || 1_000_000);
  const large = smoke ? 9000 : Number(process.env.BENCH_AUDIT_LOG_ENTRIES || 10_000_000);
  if (!(total > 0 && large > total))
    throw new Error(
      'the audit log case needs 0 < BENCH_AUDIT_LOG_API_ENTRIES < BENCH_AUDIT_LOG_ENTRIES',
    );
  users = Math.max(1, Math.floor(large / 200));
  spacingMs = Math.min(1000, Math.floor((STATS_DAYS * DAY_MS) / large));
  const runs = smoke ? 3 : 20;
  const began = performance.now();
  progress = smoke
    ? () => {}
    : (message) =>
        console.log(
          `audit log, ${((performance.now() - began) / 60_000).toFixed(1)} min: ${message}`,
        );
  const sizes = /** @type {[string, string]} */ ([count(total), count(large)]);
  /** @type {Row[]} */
  const rows = [];
  const database = await freshDatabase(adminUrl);
  /** @type {Server | undefined} */
  let server = await startSecadmin({ databaseUrl: database.url });
  const { dataDir } = server;
  const scratch = await mkdtemp(join(tmpdir(), 'secadmin-bench-copy-'));
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    // The first part of the log through the API, and what a client sees of it.
    progress(`ingesting ${sizes[0]} entries through the API`);
    const ingest = await ingestWithLags(server, db, total);
    rows.push(...ingest.rows);
    progress(`verifying the chain`);
    rows.push(...(await verifyRows(server, total)));
    progress(`COPY of the same entries`);
    const copy = await copyRates(db, scratch, total);
    await db.query('ANALYZE log_entries');
    rows.push({
      case: `ingest with sealing, batches of 1,000, 4 in flight, ${sizes[0]} entries`,
      peer: 'COPY FROM STDIN, primary key only',
      secadmin: `${perSecond(ingest.rate)} (${ingest.cpu}); server RSS ${ingest.rssMb.toFixed(0)} MB after, peak ${ingest.peakMb.toFixed(0)} MB`,
      peerFigure: `${perSecond(copy.primaryKeyOnly)} (into an identical table: ${perSecond(copy.identical)})`,
      ratio: ingest.rate / copy.primaryKeyOnly,
      target: '≥ 25,000 entries/s',
      met: ingest.rate >= 25_000,
    });

    // Search and statistics over the first part, the list, the export.
    progress(`search and statistics at ${sizes[0]}`);
    const small = await measureMixes(server.api, { entries: total, runs });
    rows.push(await listRow(server, db, smoke));
    progress(`export`);
    rows.push(await exportRow(server, db));
    await untilSearchable(server.api, db);
    const firstPeakMb = server.peakRssMb();
    await server.stop({ keepDataDir: true });
    server = undefined;
    progress(`the engine alone at ${sizes[0]}`);
    const smallEngine = await measureEngine(dataDir, runs);

    // The log grows to its full size; the restarted server feeds the store.
    progress(`COPY of ${count(large - total)} more entries, then the feed`);
    const grown = await growByBulk(db, {
      from: total,
      to: large,
      restart: async () => {
        server = await startSecadmin({ databaseUrl: database.url, dataDir });
        return server;
      },
    });
    server = grown.server;
    const bulk = large - total;
    rows.push({
      case: `feed the analytics store: ${count(bulk)} sealed entries written to PostgreSQL (COPY) while the server was stopped, from its start until the store holds them`,
      peer: '—',
      secadmin: `${perSecond(bulk / (grown.feedMs / 1000))} (${(grown.feedMs / 1000).toFixed(0)} s, of which ${(grown.readyMs / 1000).toFixed(1)} s to /readyz; ${grown.cpu})`,
      peerFigure: `COPY of those entries and their chain rows: ${perSecond(bulk / (grown.loadMs / 1000))}`,
      ratio: null,
      target: '— (measured)',
      met: true,
    });
    progress(`search and statistics at ${sizes[1]}`);
    const largeRun = await measureMixes(grown.server.api, { entries: large, runs });
    const secondPeakMb = grown.server.peakRssMb();
    await grown.server.stop({ keepDataDir: true });
    server = undefined;
    progress(`the engine alone at ${sizes[1]}`);
    const largeEngine = await measureEngine(dataDir, runs);

    const searchRuns = [
      { size: sizes[0], http: small.search, engine: smallEngine.searches.each },
      { size: sizes[1], http: largeRun.search, engine: largeEngine.searches.each },
    ];
    const search = largeRun.search.mix;
    const searchEngine = largeEngine.searches.mix;
    const growth = search.p95Ms / small.search.mix.p95Ms;
    rows.push({
      case: `search, ${SEARCH_MIX.length} queries over ${sizes[1]} entries (and ${sizes[0]}), through HTTP`,
      peer: `the engine alone: the same statements straight in chdb (the table in ${largeEngine.parts} parts)`,
      secadmin: `${p50p95(search)} (at ${sizes[0]}: p95 ${small.search.mix.p95Ms.toFixed(1)} ms; growth ${growth.toFixed(2)}×)`,
      peerFigure: p50p95(searchEngine),
      ratio: search.p95Ms / searchEngine.p95Ms,
      target: 'p95 < 30 ms; growth ≤ 1.5×',
      met: search.p95Ms < 30 && growth <= 1.5,
      detail: { runs: searchRuns, markdown: searchMixTable(searchRuns) },
    });
    const perQuery = largeRun.search.queries.map(
      (q, k) => q.p50Ms / (largeEngine.searches.each[k]?.p50Ms ?? Number.NaN),
    );
    rows.push({
      case: `search answer through HTTP vs its statements straight in the engine, ${sizes[1]} entries (the mix's p95; per query, p50 ÷ p50)`,
      peer: 'the engine alone',
      secadmin: `p95 ${search.p95Ms.toFixed(1)} ms; per query ${Math.min(...perQuery).toFixed(2)}–${Math.max(...perQuery).toFixed(2)}×`,
      peerFigure: `p95 ${searchEngine.p95Ms.toFixed(1)} ms`,
      ratio: search.p95Ms / searchEngine.p95Ms,
      target: 'overhead ≤ 2×',
      met: search.p95Ms <= 2 * searchEngine.p95Ms,
    });
    const statsRuns = [
      { size: sizes[0], http: small.stats, engine: smallEngine.stats.each },
      { size: sizes[1], http: largeRun.stats, engine: largeEngine.stats.each },
    ];
    const stats = largeRun.stats;
    const statsEngine = largeEngine.stats.mix;
    rows.push({
      case: `log stats over 30 days of ${sizes[1]} entries (and ${sizes[0]}), ${STATS_MIX.length} requests, up to 6 facets, through HTTP`,
      peer: `the engine alone: the same statement straight in chdb (the table in ${largeEngine.parts} parts)`,
      secadmin: `${p50p95(stats.mix)} (without a query p95 ${stats.withoutQuery.p95Ms.toFixed(1)} ms, with one ${stats.withQuery.p95Ms.toFixed(1)} ms; at ${sizes[0]}: p95 ${small.stats.mix.p95Ms.toFixed(1)} ms)`,
      peerFigure: p50p95(statsEngine),
      ratio: stats.mix.p95Ms / statsEngine.p95Ms,
      target: 'p95 < 100 ms',
      met: stats.mix.p95Ms < 100,
      detail: { runs: statsRuns, markdown: logStatsTable(statsRuns) },
    });
    const peakMb = Math.max(firstPeakMb, secondPeakMb);
    rows.push({
      case: `server peak RSS (VmHWM), embedded analytics store included: the server that ingested ${sizes[0]} entries and exported them, and the one that fed the store to ${sizes[1]} and answered the mixes`,
      peer: '—',
      secadmin: `${firstPeakMb.toFixed(0)} MB; ${secondPeakMb.toFixed(0)} MB`,
      peerFigure: '—',
      ratio: null,
      target: '< 1 GB',
      met: peakMb < 1024,
    });
  } finally {
    await db.end();
    await /** @type {Server | undefined} */ (server)?.stop();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  }
  return rows;
}
