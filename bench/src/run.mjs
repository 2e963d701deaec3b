// `pnpm bench`: every case at full size, written to bench/results/latest.{md,json}.
// `pnpm bench --smoke` (part of `pnpm test`): every case at a tiny size, to results/tmp/.
// `pnpm bench --only "audit log,HTTP"`: those cases at full size, to results/tmp/ too (a table
// of some rows is no result of the whole bench), or with `--save-as audit-log` to
// results/audit-log.{md,json}: a result of those cases alone.

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { testPostgres, useMemoryTmpdir } from '@secadmin/test-infra';
import { auditLogCases } from './cases/audit-log.mjs';
import { coldStart } from './cases/cold-start.mjs';
import { hostileRequestCases } from './cases/hostile-requests.mjs';
import { httpCases } from './cases/http.mjs';
import { logStreamCases } from './cases/log-streams.mjs';
import { policyDecision } from './cases/policy-decision.mjs';
import { readReplicaCases } from './cases/read-replica.mjs';
import { scimCases } from './cases/scim.mjs';
import { NODE24, SYSTEM_NODE } from './lib/processes.mjs';

/** @import { Row } from './lib/measure.mjs' */

const smoke = process.argv.includes('--smoke');
// A smoke run measures nothing that is kept: its servers' files may as well live in memory.
if (smoke) useMemoryTmpdir();
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : (process.argv[onlyAt + 1] ?? '').split(',');
const saveAt = process.argv.indexOf('--save-as');
const saveAs = saveAt === -1 ? undefined : process.argv[saveAt + 1];
if (saveAs !== undefined && !(only && !smoke && /^[a-z0-9-]+$/.test(saveAs))) {
  console.error('--save-as <name> (lowercase letters, digits, -) goes with --only, not --smoke');
  process.exit(64);
}
const started = Date.now();
/** @type {Row[]} */
const results = [];
/** @type {[name: string, run: (options: { smoke: boolean, adminUrl: string }) => Promise<Row[]>][]} */
const cases = [
  ['policy decision', policyDecision],
  ['HTTP', httpCases],
  ['audit log', auditLogCases],
  ['hostile requests', hostileRequestCases],
  ['log streams', logStreamCases],
  ['read replica', readReplicaCases],
  ['cold start', coldStart],
  ['SCIM', scimCases],
];
const unknown = only?.filter((name) => !cases.some(([known]) => known === name)) ?? [];
if (unknown.length > 0) {
  console.error(
    `--only: no case ${unknown.join(', ')}; the cases: ${cases.map(([n]) => n).join(', ')}`,
  );
  process.exit(64);
}
const postgres = await testPostgres();
console.log(postgres.summary);
for (const [name, run] of cases) {
  if (only && !only.includes(name)) continue;
  const t = Date.now();
  results.push(...(await run({ smoke, adminUrl: postgres.url })));
  console.log(`${name}: done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
await postgres.release();

const environment = {
  date: new Date().toISOString(),
  node: [SYSTEM_NODE, NODE24].map((node) => execFileSync(node, ['--version']).toString().trim()),
  cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  database: postgres.version,
  smoke,
  command: ['pnpm bench', ...process.argv.slice(2)].join(' '),
  // The sizes and switches a run was given (BENCH_AUDIT_LOG_ENTRIES, …).
  settings: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))),
  // The machine is shared: how busy it was over the last quarter hour of the run.
  loadAverage15Min: loadavg()[2] ?? 0,
};
/** @param {number | null} r */
const fmtRatio = (r) => (r === null || r === undefined ? '—' : `${r.toFixed(2)}×`);
const table = [
  '| case | peer | secadmin | peer figure | ratio | target | met? |',
  '|---|---|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.case} | ${r.peer} | ${r.secadmin} | ${r.peerFigure} | ${fmtRatio(r.ratio)} | ${r.target} | ${r.met ? 'yes' : 'no'} |`,
  ),
].join('\n');
// Tables a case adds under the main one (e.g. the search mix per query).
const details = results.flatMap((r) =>
  typeof r.detail?.markdown === 'string' ? [`\n${r.detail.markdown}\n`] : [],
);
const markdown = `# secadmin benchmark${smoke ? ' (smoke)' : ''}${only ? ` (only ${only.join(', ')})` : ''}

${environment.date}; Node ${environment.node.join(' and ')}; ${environment.cpu}; PostgreSQL ${environment.database}; load average over the last 15 minutes ${environment.loadAverage15Min.toFixed(1)}.
\`${[...Object.entries(environment.settings).map(([k, v]) => `${k}=${v}`), environment.command].join(' ')}\`
Ratios are secadmin ÷ peer (for the deep list page: page N ÷ page 1; for search and log statistics: through HTTP ÷ the analytics engine alone).

${table}
${details.join('')}`;
const dir = fileURLToPath(
  new URL(smoke || (only && !saveAs) ? '../results/tmp/' : '../results/', import.meta.url),
);
const name = saveAs ?? 'latest';
await mkdir(dir, { recursive: true });
await writeFile(`${dir}${name}.md`, markdown);
await writeFile(`${dir}${name}.json`, `${JSON.stringify({ environment, results }, null, 2)}\n`);
console.log(markdown);
console.log(`wrote ${dir}${name}.md in ${((Date.now() - started) / 1000).toFixed(0)} s`);
