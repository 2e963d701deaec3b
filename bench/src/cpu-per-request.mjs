// Server CPU per request of two builds, A/B: `pnpm --filter @secadmin/bench run cpu-ab --
// --before <clone> --after <clone>`. Wall-clock throughput on a shared machine moves with
// everything else it runs; the CPU time the server process spends per request (every thread,
// from /proc) hardly does, so two builds' figures compare even under load. Each round starts
// both builds' servers side by side, each on a fresh PostgreSQL database or a fresh embedded
// one, seeds users, policies and log entries, and sends each request kind after a warm-up,
// one request at a time, in blocks that alternate between the two servers; a block is timed
// until its server is idle again (what the sealer does for an ingest counts). The table holds
// medians over the rounds.
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { searchWords } from './cases/search-mix.mjs';
import { cpuMeter, settle, spent } from './lib/cpu-time.mjs';
import { cyclic, median } from './lib/measure.mjs';
import { makePolicies, makeRequests } from './lib/policy-workload.mjs';
import { asRoot, freshDatabase, startSecadmin } from './lib/processes.mjs';

/** @import { CpuSample, CpuSpent } from './lib/cpu-time.mjs' */

const { values: args } = parseArgs({
  // `pnpm run cpu-ab -- …` passes the `--` on.
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    // Settings of one side's server, `NAME=value,…` (the same build with a feature on and off).
    'before-env': { type: 'string', default: '' },
    'after-env': { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
    databases: { type: 'string', default: 'postgres,embedded' },
    // Multiplies every row's request count (0.1 for a quick look).
    scale: { type: 'string', default: '1' },
    'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    // Only the rows whose names contain one of these comma-separated texts.
    only: { type: 'string' },
    // Writes each server's V8 CPU profile into this directory (node --cpu-prof).
    profile: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!args.before || !args.after) {
  console.error(
    'usage: cpu-per-request.mjs --before <clone or main.js> --after <clone or main.js> [--before-env NAME=value,…] [--after-env NAME=value,…] [--rounds 3] [--databases postgres,embedded] [--scale 1] [--only <row text,…>] [--profile <dir>] [--out <file.json>]',
  );
  process.exit(2);
}
const here = process.env.INIT_CWD ?? process.cwd();
/** @param {string} tree */
const serverMain = (tree) =>
  tree.endsWith('.js') ? resolve(here, tree) : resolve(here, tree, 'apps/server/dist/main.js');
/** @param {string} list `NAME=value,…` */
const envOf = (list) =>
  Object.fromEntries(
    list
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
const builds = /** @type {const} */ ([
  ['before', serverMain(args.before), envOf(args['before-env'])],
  ['after', serverMain(args.after), envOf(args['after-env'])],
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
      request: (i) => asRoot(base, `/v1/users/${cyclic(userIds, i)}`),
    },
    {
      name: 'PATCH /v1/users/{id} (If-Match)',
      count: 300,
      request: async (i) => {
        const id = cyclic(userIds, i);
        const { etag } = await asRoot(base, `/v1/users/${id}`, {
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
          await asRoot(base, '/v1/policies/simulate', {
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
          await asRoot(base, '/v1/logs/search', {
            method: 'POST',
            body: JSON.stringify({ query: cyclic(SEARCHES, i), limit: 50 }),
          })
        ).body.meta.totalHits,
    },
    {
      name: 'GET /v1/logs (list)',
      count: 200,
      request: async (i) => (await asRoot(base, cyclic(LISTS, i))).body.data.length,
    },
    {
      name: 'POST /v1/logs/verify (whole chain)',
      count: 8,
      request: async () => {
        const { data } = (await asRoot(base, '/v1/logs/verify', { method: 'POST', body: '{}' }))
          .body;
        if (!data.valid) throw new Error(`verify: ${JSON.stringify(data)}`);
        return data.checkedEntries;
      },
    },
    {
      name: 'POST /v1/logs (1,000 entries)',
      count: 16,
      request: async (i) =>
        (await asRoot(base, '/v1/logs', { method: 'POST', body: cyclic(batches, i) })).body.data
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
    const { etag, body } = await asRoot(base, '/v1/users', {
      method: 'POST',
      body: JSON.stringify({ email: `bench${i}@example.com`, name: `Bench user ${i}` }),
    });
    userIds.push(body.data.id);
    etags.set(body.data.id, etag || (await asRoot(base, `/v1/users/${body.data.id}`)).etag);
  }
  for (const { name, effect, principals, actions, resources, conditions } of makePolicies(
    SEED.policies,
  ))
    await asRoot(base, '/v1/policies', {
      method: 'POST',
      body: JSON.stringify({ name, effect, principals, actions, resources, conditions }),
    });
  for (let b = 0; b < SEED.logBatches; b++)
    await asRoot(base, '/v1/logs', { method: 'POST', body: logBatch(b) });
  const batches = Array.from({ length: 4 }, (_, k) => logBatch(SEED.logBatches + k));
  return { userIds, etags, batches };
}

/**
 * @typedef {{ row: string, count: number, serverUs: number, backendsUs: number, work: string }} RowResult
 */

/**
 * One build's server on a fresh database, seeded, with what it spends idle.
 * @param {string} main
 * @param {Record<string, string>} env
 * @param {'postgres' | 'embedded'} database
 * @param {string} label
 */
async function startBuild(main, env, database, label) {
  const scratch = database === 'postgres' ? await freshDatabase(adminUrl) : undefined;
  const admin = scratch ? new pg.Client({ connectionString: adminUrl }) : undefined;
  await admin?.connect();
  const nodeArgs = profileDir
    ? [
        '--cpu-prof',
        // A sample every 5 ms: at the default 1 ms the profiler alone keeps the server busy.
        '--cpu-prof-interval=5000',
        `--cpu-prof-dir=${profileDir}`,
        `--cpu-prof-name=${label}.cpuprofile`,
      ]
    : [];
  const server = await startSecadmin({ main, env, nodeArgs, databaseUrl: scratch?.url }).catch(
    async (error) => {
      await admin?.end();
      await scratch?.drop();
      throw error;
    },
  );
  const stop = async () => {
    await server.stop();
    await admin?.end();
    await scratch?.drop();
  };
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
    const only = args.only?.split(',');
    const specs = rowSpecs(server.base, seeded).filter(
      (spec) => !only || only.some((text) => spec.name.includes(text)),
    );
    return { label, meter, specs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** @typedef {Awaited<ReturnType<typeof startBuild>>} Build */

/**
 * What each idle server spends (the sealer's poll, the disk check) per ms, to take off each
 * row, and the CPU a quarter second under which a server counts as idle again.
 * @param {Build[]} runs
 */
async function idleRates(runs) {
  const quiet = await Promise.all(runs.map((run) => settle(run.meter, 15e6)));
  await new Promise((r) => setTimeout(r, 2000));
  return Promise.all(
    runs.map(async (run, k) => {
      const idle = spent(/** @type {CpuSample} */ (quiet[k]), await run.meter());
      const server = idle.serverNs / idle.wallMs;
      const backends = idle.backendsNs / idle.wallMs;
      return { server, backends, quietNs: Math.max(2e6, 2 * 250 * (server + backends)) };
    }),
  );
}

/** Each row's requests go to the builds in turn, this many blocks each. */
const BLOCKS = 8;

/**
 * One round on one kind of database: both builds' servers side by side, each row's requests
 * sent to them in alternating blocks, so that both meet the same moments of a busy machine.
 * Each block is timed until its server is idle again.
 * @param {'postgres' | 'embedded'} database
 * @param {number} round
 * @returns {Promise<Record<'before' | 'after', RowResult[]>>}
 */
async function measureRound(database, round) {
  /** @type {Build[]} */
  const runs = [];
  try {
    for (const [build, main, env] of builds)
      runs.push(await startBuild(main, env, database, `r${round}-${database}-${build}`));
    const idle = await idleRates(runs);
    /** @type {RowResult[][]} */
    const results = runs.map(() => []);
    for (const [r, { name, count: fullCount }] of (runs[0]?.specs ?? []).entries()) {
      const count = Math.max(BLOCKS, Math.round(fullCount * scale));
      const warmup = Math.max(1, Math.round(count / 10));
      const used = runs.map(() => ({ serverNs: 0, backendsNs: 0, wallMs: 0 }));
      const work = runs.map(() => /** @type {Set<string>} */ (new Set()));
      for (const run of runs) for (let i = 0; i < warmup; i++) await run.specs[r]?.request(i);
      for (const [k, run] of runs.entries()) await settle(run.meter, idle[k]?.quietNs ?? 0);
      for (let block = 0; block < BLOCKS; block++) {
        const from = warmup + Math.round((block * count) / BLOCKS);
        const to = warmup + Math.round(((block + 1) * count) / BLOCKS);
        const order = (block + round) % 2 === 0 ? [0, 1] : [1, 0];
        for (const k of order) {
          const run = /** @type {Build} */ (runs[k]);
          const start = await run.meter();
          for (let i = from; i < to; i++) {
            const figure = await run.specs[r]?.request(i);
            if (figure !== undefined) work[k]?.add(String(figure));
          }
          const cost = spent(start, await settle(run.meter, idle[k]?.quietNs ?? 0));
          const sum = /** @type {CpuSpent} */ (used[k]);
          sum.serverNs += cost.serverNs;
          sum.backendsNs += cost.backendsNs;
          sum.wallMs += cost.wallMs;
        }
      }
      for (const [k, sum] of used.entries()) {
        const rates = idle[k] ?? { server: 0, backends: 0 };
        /** @param {number} ns @param {number} perMs */
        const net = (ns, perMs) => Math.max(0, ns - perMs * sum.wallMs) / count / 1000;
        results[k]?.push({
          row: name,
          count,
          serverUs: net(sum.serverNs, rates.server),
          backendsUs: net(sum.backendsNs, rates.backends),
          work: [...(work[k] ?? [])].sort().join(' '),
        });
      }
    }
    for (const [k, run] of runs.entries())
      console.log(
        `${run.label}: ${results[k]?.map((r) => `${r.row} ${r.serverUs.toFixed(0)} µs`).join('; ')} (idle server ${idle[k]?.server.toFixed(0)} µs/s)`,
      );
    return { before: results[0] ?? [], after: results[1] ?? [] };
  } finally {
    for (const run of runs) await run.stop();
  }
}

/** @type {Map<string, Record<'before' | 'after', RowResult[]>>} key: database + row */
const collected = new Map();
for (let round = 1; round <= rounds; round++) {
  for (const database of databases) {
    const measured = await measureRound(database, round);
    for (const build of /** @type {const} */ (['before', 'after']))
      for (const result of measured[build]) {
        const key = `${database}\t${result.row}`;
        const entry = collected.get(key) ?? { before: [], after: [] };
        entry[build].push(result);
        collected.set(key, entry);
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
  // A round's two servers met the same moments of the machine: its ratio is the figure to trust.
  const paired = before.map((r, k) => (after[k]?.serverUs ?? Number.NaN) / r.serverUs);
  const ratio = median(paired) ?? Number.NaN;
  const sameWork = before.every((r, k) => r.work === after[k]?.work);
  return { database, row, before: b, after: a, ratio, paired, sameWork };
});
const markdown = [
  `Server CPU per request (µs, median of ${rounds} rounds; every thread of the server process, idle CPU taken off); after ÷ before is the median of the rounds' ratios. PostgreSQL backends' CPU per request beside it.`,
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
