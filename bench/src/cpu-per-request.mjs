// Server CPU per request of two builds, A/B: `pnpm --filter @secadmin/bench run cpu-ab --
// --before <clone> --after <clone>`. Wall-clock throughput on a shared machine moves with
// everything else it runs; the CPU time the server process spends per request (every thread,
// from /proc) does not, so two builds' figures compare even under load. Each run starts one
// build's server on a fresh PostgreSQL database or a fresh embedded one, seeds users,
// policies and log entries, and times each request kind after a warm-up, one request at a
// time, until the server is idle again (what the sealer does for an ingest counts). Builds
// alternate within a round; the table holds medians over the rounds.
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { searchWords } from './cases/search-mix.mjs';
import { cpuMeter, settle, spent } from './lib/cpu-time.mjs';
import { cyclic, median } from './lib/measure.mjs';
import { makePolicies, makeRequests } from './lib/policy-workload.mjs';
import { freshDatabase, ROOT_KEY, startSecadmin } from './lib/processes.mjs';

/** @import { CpuSample, CpuSpent } from './lib/cpu-time.mjs' */

const { values: args } = parseArgs({
  // `pnpm run cpu-ab -- …` passes the `--` on.
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    databases: { type: 'string', default: 'postgres,embedded' },
    // Multiplies every row's request count (0.1 for a quick look).
    scale: { type: 'string', default: '1' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    // Writes each server's V8 CPU profile into this directory (node --cpu-prof).
    profile: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!args.before || !args.after) {
  console.error(
    'usage: cpu-per-request.mjs --before <clone or main.js> --after <clone or main.js> [--rounds 3] [--databases postgres,embedded] [--scale 1] [--profile <dir>] [--out <file.json>]',
  );
  process.exit(2);
}
const here = process.env.INIT_CWD ?? process.cwd();
/** @param {string} tree */
const serverMain = (tree) =>
  tree.endsWith('.js') ? resolve(here, tree) : resolve(here, tree, 'apps/server/dist/main.js');
const builds = /** @type {const} */ ([
  ['before', serverMain(args.before)],
  ['after', serverMain(args.after)],
]);
const rounds = Number(args.rounds);
const scale = Number(args.scale);
const databases = /** @type {('postgres' | 'embedded')[]} */ (args.databases.split(','));
const adminUrl = args['admin-url'];
const profileDir = args.profile ? resolve(here, args.profile) : undefined;

const SEED = { users: 20, policies: 200, logBatches: 10 };
const EVENTS = ['user.login', 'user.logout', 'file.download', 'policy.updated', 'session.expired'];
/** The log's entries are timestamped over the last hours, where no retention reaches. */
const LOG_START = Date.now() - 6 * 3600_000;

/**
 * A small log entry; `searchWords` puts the search queries' words in some of them.
 * @param {number} i
 */
const logEntry = (i) => ({
  event: cyclic(EVENTS, i),
  actor: { id: `user_${i % 500}`, type: 'user' },
  target: { id: `doc_${i % 777}`, type: 'document' },
  context: { ip: `10.0.${(i >> 8) & 255}.${i & 255}` },
  result: i % 11 === 0 ? 'failure' : 'success',
  timestamp: new Date(LOG_START + i * 100).toISOString(),
  metadata: { note: [...searchWords(i), 'routine'].join(' ') },
});
/** @param {number} batch */
const logBatch = (batch) =>
  JSON.stringify({ entries: Array.from({ length: 1000 }, (_, k) => logEntry(batch * 1000 + k)) });

const SEARCHES = [
  'zephyr',
  'quasar',
  'login',
  'zephyr -quasar',
  'event:user.login zephyr',
  'actor:user_42',
  'result:failure',
  'pulsar OR routine',
];
const LISTS = [
  '/v1/logs?limit=50',
  '/v1/logs?limit=50&actor=user_42',
  '/v1/logs?limit=50&events=user.login,file.download',
  '/v1/logs?limit=50&result=failure',
];

/**
 * One request with the root key; throws unless 2xx.
 * @param {string} base
 * @param {string} path
 * @param {{ method?: string, body?: string, headers?: Record<string, string> }} [init]
 */
async function send(base, path, init = {}) {
  const res = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${ROOT_KEY}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return { etag: res.headers.get('etag') ?? '', body: JSON.parse(text) };
}

/**
 * The request kinds measured, in the order they run on each server. `request(i)` sends the
 * i-th one (warm-up included) and may answer a figure that says what work it did, so that
 * both builds can be seen to have done the same.
 * @typedef {{ name: string, count: number, request: (i: number) => Promise<unknown> }} RowSpec
 */

/**
 * @param {string} base
 * @param {{ userIds: string[], etags: Map<string, string>, batches: string[] }} seeded
 * @returns {RowSpec[]}
 */
function rowSpecs(base, { userIds, etags, batches }) {
  const simulations = makeRequests(64, SEED.policies).map((r) =>
    JSON.stringify({
      principal: r.principal,
      action: r.action,
      resource: r.resource,
      context: { ip: r.ip },
    }),
  );
  return [
    {
      name: 'GET /v1/users/{id}',
      count: 800,
      request: (i) => send(base, `/v1/users/${cyclic(userIds, i)}`),
    },
    {
      name: 'PATCH /v1/users/{id} (If-Match)',
      count: 300,
      request: async (i) => {
        const id = cyclic(userIds, i);
        const { etag } = await send(base, `/v1/users/${id}`, {
          method: 'PATCH',
          body: JSON.stringify({ name: `Bench user ${i}` }),
          headers: { 'if-match': etags.get(id) ?? '*' },
        });
        etags.set(id, etag);
      },
    },
    {
      name: 'POST /v1/policies/simulate',
      count: 800,
      request: async (i) =>
        (
          await send(base, '/v1/policies/simulate', {
            method: 'POST',
            body: cyclic(simulations, i),
          })
        ).body.data.decision,
    },
    {
      name: 'POST /v1/logs/search',
      count: 160,
      request: async (i) =>
        (
          await send(base, '/v1/logs/search', {
            method: 'POST',
            body: JSON.stringify({ query: cyclic(SEARCHES, i), limit: 50 }),
          })
        ).body.meta.totalHits,
    },
    {
      name: 'GET /v1/logs (list)',
      count: 200,
      request: async (i) => (await send(base, cyclic(LISTS, i))).body.data.length,
    },
    {
      name: 'POST /v1/logs/verify (whole chain)',
      count: 8,
      request: async () => {
        const { data } = (await send(base, '/v1/logs/verify', { method: 'POST', body: '{}' })).body;
        if (!data.valid) throw new Error(`verify: ${JSON.stringify(data)}`);
        return data.checkedEntries;
      },
    },
    {
      name: 'POST /v1/logs (1,000 entries)',
      count: 16,
      request: async (i) =>
        (await send(base, '/v1/logs', { method: 'POST', body: cyclic(batches, i) })).body.data
          .length,
    },
  ];
}

/**
 * Users, policies and 10,000 log entries, through the API (the embedded database has no
 * other door).
 * @param {string} base
 */
async function seed(base) {
  const userIds = [];
  const etags = new Map();
  for (let i = 0; i < SEED.users; i++) {
    const { etag, body } = await send(base, '/v1/users', {
      method: 'POST',
      body: JSON.stringify({ email: `bench${i}@example.com`, name: `Bench user ${i}` }),
    });
    userIds.push(body.data.id);
    etags.set(body.data.id, etag || (await send(base, `/v1/users/${body.data.id}`)).etag);
  }
  for (const { name, effect, principals, actions, resources, conditions } of makePolicies(
    SEED.policies,
  ))
    await send(base, '/v1/policies', {
      method: 'POST',
      body: JSON.stringify({ name, effect, principals, actions, resources, conditions }),
    });
  for (let b = 0; b < SEED.logBatches; b++)
    await send(base, '/v1/logs', { method: 'POST', body: logBatch(b) });
  const batches = Array.from({ length: 4 }, (_, k) => logBatch(SEED.logBatches + k));
  return { userIds, etags, batches };
}

/**
 * @typedef {{ row: string, count: number, serverUs: number, backendsUs: number, work: string }} RowResult
 */

/**
 * One build's server on a fresh database: every row's CPU per request.
 * @param {string} main
 * @param {'postgres' | 'embedded'} database
 * @param {string} label
 * @returns {Promise<RowResult[]>}
 */
async function measureRun(main, database, label) {
  const scratch = database === 'postgres' ? await freshDatabase(adminUrl) : undefined;
  const admin = scratch ? new pg.Client({ connectionString: adminUrl }) : undefined;
  await admin?.connect();
  /** @type {Record<string, string>} */
  const env = profileDir
    ? {
        NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-name=${label}.cpuprofile`,
      }
    : {};
  const server = await startSecadmin({ main, databaseUrl: scratch?.url, env });
  try {
    const databaseName = scratch ? new URL(scratch.url).pathname.slice(1) : '';
    const meter = cpuMeter(
      /** @type {number} */ (server.pid),
      admin
        ? async () =>
            (
              await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
                databaseName,
              ])
            ).rows.map((r) => r.pid)
        : undefined,
    );
    const seeded = await seed(server.base);
    // Planner statistics, as autovacuum would gather them (it is off on this machine).
    if (scratch) {
      const db = new pg.Client({ connectionString: scratch.url });
      await db.connect();
      await db.query('ANALYZE');
      await db.end();
    }
    // What the idle server spends (the sealer's poll, the disk check), to take off each row.
    const quiet = await settle(meter, 5e6);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = spent(quiet, await meter());
    const idlePerMs = {
      server: idle.serverNs / idle.wallMs,
      backends: idle.backendsNs / idle.wallMs,
    };
    const quietNs = Math.max(2e6, 2 * 250 * (idlePerMs.server + idlePerMs.backends));

    /** @type {RowResult[]} */
    const results = [];
    for (const spec of rowSpecs(server.base, seeded)) {
      const count = Math.max(4, Math.round(spec.count * scale));
      const warmup = Math.max(1, Math.round(count / 10));
      for (let i = 0; i < warmup; i++) await spec.request(i);
      await settle(meter, quietNs);
      /** @type {Set<string>} */
      const work = new Set();
      const start = await meter();
      for (let i = warmup; i < warmup + count; i++) {
        const figure = await spec.request(i);
        if (figure !== undefined) work.add(String(figure));
      }
      /** @type {CpuSpent} */
      const used = spent(start, await settle(meter, quietNs));
      const net = (/** @type {number} */ ns, /** @type {number} */ perMs) =>
        Math.max(0, ns - perMs * used.wallMs) / count / 1000;
      results.push({
        row: spec.name,
        count,
        serverUs: net(used.serverNs, idlePerMs.server),
        backendsUs: net(used.backendsNs, idlePerMs.backends),
        work: [...work].sort().join(' '),
      });
    }
    console.log(
      `${label}: ${results.map((r) => `${r.row} ${r.serverUs.toFixed(0)} µs`).join('; ')} (idle server ${idlePerMs.server.toFixed(0)} µs/s)`,
    );
    return results;
  } finally {
    await server.stop();
    await admin?.end();
    await scratch?.drop();
  }
}

/** @type {Map<string, { before: RowResult[], after: RowResult[] }>} key: database + row */
const collected = new Map();
for (let round = 1; round <= rounds; round++) {
  for (const database of databases) {
    // Alternate which build goes first, so that neither always meets the same moment.
    const order = (round + databases.indexOf(database)) % 2 === 1 ? builds : [...builds].reverse();
    for (const [build, main] of order) {
      for (const result of await measureRun(main, database, `r${round}-${database}-${build}`)) {
        const key = `${database}\t${result.row}`;
        const entry = collected.get(key) ?? { before: [], after: [] };
        entry[build].push(result);
        collected.set(key, entry);
      }
    }
  }
}

/** @param {RowResult[]} results */
const medians = (results) => ({
  serverUs: median(results.map((r) => r.serverUs)) ?? Number.NaN,
  backendsUs: median(results.map((r) => r.backendsUs)) ?? Number.NaN,
});
/** @param {number} us */
const fmtUs = (us) => (us >= 100 ? us.toFixed(0) : us.toFixed(1));
/** @param {number} r */
const fmtRatio = (r) => `${r.toFixed(2)}×`;
const table = [...collected].map(([key, { before, after }]) => {
  const [database, row] = key.split('\t');
  const b = medians(before);
  const a = medians(after);
  const paired = before.map((r, k) => (after[k]?.serverUs ?? Number.NaN) / r.serverUs);
  const sameWork = before.every((r, k) => r.work === after[k]?.work);
  return { database, row, before: b, after: a, ratio: a.serverUs / b.serverUs, paired, sameWork };
});
const markdown = [
  `Server CPU per request (µs, median of ${rounds} rounds; every thread of the server process, idle CPU taken off). PostgreSQL backends' CPU per request beside it.`,
  '',
  '| database | request | before | after | after ÷ before | rounds | backends before → after |',
  '| --- | --- | ---: | ---: | ---: | --- | --- |',
  ...table.map(
    (t) =>
      `| ${t.database} | ${t.row} | ${fmtUs(t.before.serverUs)} | ${fmtUs(t.after.serverUs)} | ${fmtRatio(t.ratio)}${t.sameWork ? '' : ' (different work)'} | ${t.paired.map(fmtRatio).join(', ')} | ${t.database === 'postgres' ? `${fmtUs(t.before.backendsUs)} → ${fmtUs(t.after.backendsUs)}` : '—'} |`,
  ),
].join('\n');
console.log(`\nbefore: ${builds[0][1]}\nafter:  ${builds[1][1]}\n\n${markdown}`);
if (args.out) {
  const out = resolve(here, args.out);
  await mkdir(resolve(out, '..'), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), builds, rounds, scale, table, runs: Object.fromEntries(collected) }, null, 2)}\n`,
  );
}
