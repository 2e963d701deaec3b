import autocannon from 'autocannon';
import pg from 'pg';
import { makePolicies } from './lib/policy-workload.mjs';
import { freshDatabase, NODE24, ROOT_KEY, SYSTEM_NODE, startSecadmin } from './lib/processes.mjs';
const node = process.argv[2] === '24' ? NODE24 : SYSTEM_NODE;
const embedded = process.argv.includes('embedded');
const database = embedded ? null : await freshDatabase();
const server = await startSecadmin({ node, databaseUrl: database?.url, env: process.env.PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROF}` } : {} });
try {
  if (database) {
    const client = new pg.Client({ connectionString: database.url }); await client.connect();
    for (const p of makePolicies(1000)) await client.query(`INSERT INTO policies (id, name, effect, principals, actions, resources, conditions, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,now(),now())`, [p.id, p.name, p.effect, p.principals, p.actions, p.resources, p.conditions ?? null]);
    await client.query('UPDATE state_versions SET policies = policies + 1 WHERE id = 1'); await client.end();
  }
  const user = (await server.api('/v1/users', { method: 'POST', body: JSON.stringify({ email: 'b@example.com', name: 'B' }) })).data;
  const body = JSON.stringify({ principal: 'user:u17', action: 'documents:read', resource: 'documents/17', context: { ip: '10.1.2.3' } });
  for (const [name, opts] of [['simulate', { url: `${server.base}/v1/policies/simulate`, method: 'POST', body }], ['getUser', { url: `${server.base}/v1/users/${user.id}` }]]) {
    await autocannon({ ...opts, connections: 50, duration: 2, headers: { authorization: `Bearer ${ROOT_KEY}`, 'content-type': 'application/json' } });
    const r = await autocannon({ ...opts, connections: 50, duration: Number(process.env.DUR ?? 6), headers: { authorization: `Bearer ${ROOT_KEY}`, 'content-type': 'application/json' } });
    console.log(name, Math.round(r.requests.average), 'req/s p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx);
  }
} finally { await server.stop(); await database?.drop(); }
