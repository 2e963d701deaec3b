// Audit log at scale on PostgreSQL: ingest rate through the API, search and filtered
// list latency, export throughput and the server's peak memory.
// Run: node apps/server/bench/audit-log.mjs [entries=1000000]
// Needs the PostgreSQL server here (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test);
// creates and drops its own database. Traffic goes to 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const BATCH = 1000;
const CONCURRENCY = 4;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const KEY = `sk_${'b'.repeat(43)}`;
const PORT = 3900 + Math.floor(Math.random() * 90);
const BASE = `http://127.0.0.1:${PORT}`;
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

const EVENTS = [
  'user.login',
  'user.logout',
  'user.password_reset.failed',
  'file.download',
  'policy.updated',
  'session.expired',
];
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

function entry(i, start) {
  const [city, country] = CITIES[i % CITIES.length];
  const user = i % 5000;
  return {
    event: EVENTS[i % EVENTS.length],
    actor: { id: `user_${user}`, email: `user${user}@example.com`, type: 'user' },
    target: { id: `res_${i % 777}`, type: 'document' },
    context: {
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      userAgent: AGENTS[i % AGENTS.length],
      location: { city, country },
    },
    result: i % 11 === 0 ? 'failure' : 'success',
    timestamp: new Date(start + i * 1000).toISOString(),
    metadata: { requestNo: i, note: i % 13 === 0 ? 'suspicious login pattern' : 'routine' },
  };
}

async function api(path, init = {}) {
  const res = await fetch(`${BASE}${path}`, { ...init, headers: { ...headers, ...init.headers } });
  if (!res.ok)
    throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const percentile = (sorted, q) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
async function timed(fn, runs) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

const name = `secadmin_bench_${Date.now()}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;
const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-bench-'));
const server = spawn(
  process.execPath,
  [fileURLToPath(new URL('../dist/main.js', import.meta.url))],
  {
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      SECADMIN_DATA_DIR: dataDir,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      SECADMIN_ADMIN_API_KEY: KEY,
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  },
);
const peakRssMb = () =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]) / 1024;
try {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${BASE}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const start = Date.parse('2025-01-01T00:00:00Z');
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const from = next;
        next += BATCH;
        const entries = Array.from({ length: Math.min(BATCH, TOTAL - from) }, (_, k) =>
          entry(from + k, start),
        );
        await api('/v1/logs', { method: 'POST', body: JSON.stringify({ entries }) });
      }
    }),
  );
  const ingestSeconds = (performance.now() - t0) / 1000;
  console.log(`server peak RSS after ingest: ${peakRssMb().toFixed(0)} MB`);
  console.log(
    `ingest: ${TOTAL} entries in ${ingestSeconds.toFixed(1)} s = ${Math.round(TOTAL / ingestSeconds)} entries/s (batches of ${BATCH}, ${CONCURRENCY} concurrent)`,
  );
  await admin.query('SELECT 1');
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query('ANALYZE log_entries');

  const queries = [
    'login',
    'suspicious login',
    '"suspicious login pattern"',
    'user4242@example.com',
    '10.1.2.3',
    'event:user.login failure',
    'actor:user_17 download',
    'Firefox OR Safari',
    'password -result:success',
    'Berlin logout',
  ];
  const search = await timed(
    (i) =>
      api('/v1/logs/search', {
        method: 'POST',
        body: JSON.stringify({ query: queries[i % queries.length], limit: 50 }),
      }),
    60,
  );
  console.log(
    `search (${queries.length} queries, 60 runs): p50 ${search.p50.toFixed(1)} ms, p95 ${search.p95.toFixed(1)} ms`,
  );
  const list = await timed(
    (i) => api(`/v1/logs?actor=user_${i * 37}&events=user.login,file.download&limit=50`),
    60,
  );
  console.log(
    `filtered list (actor + events, 60 runs): p50 ${list.p50.toFixed(1)} ms, p95 ${list.p95.toFixed(1)} ms`,
  );

  for (const sql of [
    `EXPLAIN SELECT * FROM log_entries WHERE actor_id = 'user_17' AND event IN ('user.login','file.download') ORDER BY timestamp DESC, id DESC LIMIT 51`,
    `EXPLAIN SELECT * FROM log_entries WHERE search @@ phraseto_tsquery('simple', 'suspicious login') ORDER BY timestamp DESC, id DESC LIMIT 51`,
  ]) {
    const { rows } = await db.query(sql);
    console.log(
      `plan: ${rows
        .map((r) => r['QUERY PLAN'].trim())
        .filter((l) => /Scan|Sort|Limit/.test(l))
        .join(' | ')}`,
    );
  }
  await db.end();

  const t1 = performance.now();
  const created = await api('/v1/logs/export', {
    method: 'POST',
    body: JSON.stringify({ from: '2024-01-01', to: '2030-01-01', format: 'csv' }),
  });
  let state;
  do {
    await new Promise((r) => setTimeout(r, 250));
    state = (await api(`/v1/logs/export/${created.data.exportId}`)).data;
  } while (state.status === 'processing');
  const exportSeconds = (performance.now() - t1) / 1000;
  console.log(
    `export csv: ${state.status}, ${state.totalRecords} records, ${(state.fileSizeBytes / 1e6).toFixed(0)} MB in ${exportSeconds.toFixed(1)} s = ${Math.round(state.totalRecords / exportSeconds)} records/s`,
  );
  console.log(`server peak RSS: ${peakRssMb().toFixed(0)} MB`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
