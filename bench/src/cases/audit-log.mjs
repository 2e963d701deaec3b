// The audit log at scale on PostgreSQL: ingest vs COPY, the seal lag under that load and
// the chain's verify throughput, search (a query mix at a tenth of the log and at all of it)
// vs ILIKE scans, log statistics over 30 days, a filtered list at page 1 and deep (cursors) vs OFFSET, CSV export vs
// COPY TO, peak server memory.
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { cyclic, latencies, measureAsync, measureInterleavedAsync } from '../lib/measure.mjs';
import { freshDatabase, startSecadmin } from '../lib/processes.mjs';
import { logStatsTable, measureLogStats } from './log-stats.mjs';
import { measureSearchMix, SEARCH_MIX, searchMixTable, searchWords } from './search-mix.mjs';

/** @import { components, Export, Pagination } from '@secadmin/api-types' */
/** @import { Row } from '../lib/measure.mjs' */

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

/** Each user has ~200 entries whatever the total; one service account acts in 1 of 50. */
let users = 5000;
/**
 * The benchmark's entry number `i`: one a second from 2025-01-01, every class of search word.
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
    timestamp: new Date(START + i * 1000).toISOString(),
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
/** @param {number} i */
function copyRow(i) {
  const e = entry(i);
  return [
    `log_copy_${i}`,
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
    // What the server records of an ingested entry (provenance), so COPY writes as much.
    'api',
    'key_bench',
    e.timestamp,
  ]
    .map(csvCell)
    .join(',');
}

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

/** @param {{ smoke: boolean, adminUrl: string }} options */
export async function auditLogCases({ smoke, adminUrl }) {
  const total = smoke ? 3000 : 1_000_000;
  users = Math.max(1, Math.floor(total / 200));
  /** @type {Row[]} */
  const rows = [];
  const database = await freshDatabase(adminUrl);
  const server = await startSecadmin({ databaseUrl: database.url });
  const scratch = await mkdtemp(join(tmpdir(), 'secadmin-bench-copy-'));
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    // Ingest through the API: batches of 1,000, four at a time; the search mix is measured
    // when a tenth of the entries are in, then again at the end. Each batch's
    // acknowledgement time is kept for the seal lag.
    /** @type {{ at: number, ids: string[] }[]} */
    const acks = [];
    const batches = ingestInBatches(server.api, (ack) => acks.push(ack));
    /** @param {number} until */
    const ingest = async (until) => {
      const t0 = performance.now();
      await batches(until);
      return performance.now() - t0;
    };
    const searchRuns = smoke ? 3 : 20;
    let ingestMs = await ingest(total / 10);
    await db.query('ANALYZE log_entries');
    const searchSmall = await measureSearchMix(server.api, { runs: searchRuns });
    ingestMs += await ingest(total);
    const ingestRate = total / (ingestMs / 1000);

    const ingestRssMb = server.rssMb();
    const ingestPeakMb = server.peakRssMb();

    // Sealing kept up with that load: from each batch's acknowledgement (the client's
    // clock, the same machine's) to each of its entries' sealed_at.
    for (let queued = 1; queued > 0; ) {
      await new Promise((r) => setTimeout(r, 200));
      queued = (await db.query('SELECT count(*)::int AS n FROM log_seal_queue')).rows[0].n;
    }
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
      case: `seal lag after acknowledgement, during that ingest (${counted.toLocaleString('en')} entries)`,
      peer: '—',
      secadmin: `p50 ${lagMs(0.5).toFixed(0)} ms, p99 ${lagMs(0.99).toFixed(0)} ms, max ${lagMs(1).toFixed(0)} ms`,
      peerFigure: '—',
      ratio: null,
      target: 'p99 < 1 s',
      met: lagMs(0.99) < 1000,
    });
    // `/healthz` one request after another while the walk runs: what it costs everyone else.
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
    const t4 = performance.now();
    const verdict = /** @type {{ data: { valid: boolean, checkedEntries: number } }} */ (
      await server.api('/v1/logs/verify', { method: 'POST', body: '{}' }).finally(() => {
        verifying = false;
      })
    ).data;
    const verifyRate = verdict.checkedEntries / ((performance.now() - t4) / 1000);
    await probe;
    const healthDuring = latencies(health);
    if (!verdict.valid || verdict.checkedEntries < total)
      throw new Error(`verify: ${JSON.stringify(verdict)}`);
    rows.push({
      case: `verify the chain, ${verdict.checkedEntries.toLocaleString('en')} entries`,
      peer: '—',
      secadmin: `${Math.round(verifyRate).toLocaleString('en')} entries/s`,
      peerFigure: '—',
      ratio: null,
      target: 'valid, whole chain',
      met: verdict.valid,
    });
    rows.push({
      case: `/healthz while verify walks ${verdict.checkedEntries.toLocaleString('en')} entries (${healthDuring.count} requests, one at a time)`,
      peer: '—',
      secadmin: `p50 ${healthDuring.p50Ms.toFixed(1)} ms, p99 ${healthDuring.p99Ms.toFixed(1)} ms`,
      peerFigure: '—',
      ratio: null,
      target: 'p99 < 100 ms',
      met: healthDuring.p99Ms < 100,
    });

    // The same rows through COPY: into a table with only the primary key (the target's
    // peer), and for reference into an identical one (same generated column, same indexes).
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
    await db.query('ANALYZE log_entries');
    const rate = (/** @type {number} */ n) => `${Math.round(n).toLocaleString('en')} rows/s`;
    rows.push({
      case: `ingest, batches of 1,000, ${total.toLocaleString('en')} entries`,
      peer: 'COPY FROM STDIN, primary key only',
      secadmin: `${rate(ingestRate)}; server RSS ${ingestRssMb.toFixed(0)} MB after, peak ${ingestPeakMb.toFixed(0)} MB`,
      peerFigure: `${rate(primaryKeyOnly)} (into an identical table: ${rate(identical)})`,
      ratio: ingestRate / primaryKeyOnly,
      target: '≥ 0.3× COPY',
      met: ingestRate >= 0.3 * primaryKeyOnly,
    });

    // The search mix at the full size, vs the same words as ILIKE scans over the same text.
    const searchLarge = await measureSearchMix(server.api, { runs: searchRuns });
    const ilike = await measureAsync(
      async (i) => {
        const words = cyclic(SEARCH_MIX, i)[1]
          .replace(/"|-\S+|\bOR\b|\b(event|actor|ip|result):/g, ' ')
          .split(/\s+/)
          .filter(Boolean);
        const text = `concat_ws(' ', event, actor_id, actor_email, target_id, ip, user_agent, city, country, metadata::text)`;
        const where = words.map((_, k) => `${text} ILIKE $${k + 1}`).join(' AND ');
        await db.query(
          `SELECT id FROM log_entries WHERE ${where} ORDER BY timestamp DESC LIMIT 50`,
          words.map((w) => `%${w}%`),
        );
        await db.query(
          `SELECT count(*) FROM log_entries WHERE ${where}`,
          words.map((w) => `%${w}%`),
        );
      },
      { runs: smoke ? 20 : SEARCH_MIX.length, warmup: 1 },
    );
    const search = searchLarge.mix;
    const growth = search.p95Ms / searchSmall.mix.p95Ms;
    const sizes = /** @type {[string, string]} */ (
      [total / 10, total].map((n) => n.toLocaleString('en'))
    );
    rows.push({
      case: `search, ${SEARCH_MIX.length} queries over ${sizes[1]} entries (and ${sizes[0]})`,
      peer: 'ILIKE scans (page + count)',
      secadmin: `p50 ${search.p50Ms.toFixed(1)} ms, p95 ${search.p95Ms.toFixed(1)} ms (at ${sizes[0]}: p95 ${searchSmall.mix.p95Ms.toFixed(1)} ms; growth ${growth.toFixed(2)}×)`,
      peerFigure: `p50 ${ilike.p50Ms.toFixed(1)} ms, p95 ${ilike.p95Ms.toFixed(1)} ms`,
      ratio: ilike.p50Ms / search.p50Ms,
      target: 'p95 < 50 ms; ≥ 20× faster; growth ≤ 2×',
      met: search.p95Ms < 50 && ilike.p50Ms / search.p50Ms >= 20 && growth <= 2,
      detail: {
        small: searchSmall,
        large: searchLarge,
        markdown: searchMixTable(searchSmall, searchLarge, sizes),
      },
    });

    // Log statistics over 30 days holding every entry (one a second from START).
    const statsRuns = smoke ? 3 : 20;
    const logStats = await measureLogStats(server.api, {
      from: new Date(START).toISOString(),
      to: new Date(START + 30 * 86_400_000).toISOString(),
      runs: statsRuns,
    });
    rows.push({
      case: `log stats over 30 days of ${sizes[1]} entries, ${logStats.requests.length} requests`,
      peer: '—',
      secadmin: `p50 ${logStats.mix.p50Ms.toFixed(1)} ms, p95 ${logStats.mix.p95Ms.toFixed(1)} ms (without a query p95 ${logStats.withoutQuery.p95Ms.toFixed(1)} ms, with one ${logStats.withQuery.p95Ms.toFixed(1)} ms)`,
      peerFigure: '—',
      ratio: null,
      target: 'p95 < 200 ms',
      met: logStats.mix.p95Ms < 200,
      detail: { ...logStats, markdown: logStatsTable(logStats, sizes[1]) },
    });

    // Filtered list: page 1 vs a deep page reached through cursors, vs OFFSET.
    // The service account's entries: 20,000 of 1,000,000, so page 1,000 exists at 10 a page.
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
    rows.push({
      case: `filtered list (actor + events), page 1 vs page ${depth}`,
      peer: `OFFSET ${(depth - 1) * pageSize} in SQL`,
      secadmin: `page 1 p50 ${first.p50Ms.toFixed(2)} ms, page ${depth} p50 ${deep.p50Ms.toFixed(2)} ms`,
      peerFigure: `p50 ${offset.p50Ms.toFixed(2)} ms`,
      ratio: deep.p50Ms / first.p50Ms,
      target: 'page N within ±20 % of page 1',
      met: deep.p50Ms <= first.p50Ms * 1.2,
    });

    // Export: CSV of everything until completed, vs COPY … TO STDOUT, on the server that
    // ingested the log (issue 13): its RSS is sampled while the export runs.
    let peak = server.rssMb();
    const sampler = setInterval(() => {
      peak = Math.max(peak, server.rssMb());
    }, 50);
    const t2 = performance.now();
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
    const exportRate = totalRecords / ((performance.now() - t2) / 1000);
    const t3 = performance.now();
    let copiedBytes = 0;
    for await (const chunk of db.query(
      copyTo(
        'COPY (SELECT * FROM log_entries ORDER BY timestamp DESC, id DESC) TO STDOUT WITH CSV',
      ),
    ))
      copiedBytes += chunk.length;
    const copyOutRate = totalRecords / ((performance.now() - t3) / 1000);
    rows.push({
      case: `export CSV, ${totalRecords.toLocaleString('en')} entries`,
      peer: 'COPY … TO STDOUT WITH CSV',
      secadmin: `${Math.round(exportRate).toLocaleString('en')} rows/s, server peak RSS during it ${peak.toFixed(0)} MB`,
      peerFigure: `${Math.round(copyOutRate).toLocaleString('en')} rows/s (${(copiedBytes / 1e6).toFixed(0)} MB)`,
      ratio: exportRate / copyOutRate,
      target: '≥ 0.6× COPY; peak RSS < 300 MB',
      met: exportRate >= 0.6 * copyOutRate && peak < 300,
    });
  } finally {
    await db.end();
    await server.stop();
    await database.drop();
    await rm(scratch, { recursive: true, force: true });
  }
  return rows;
}
