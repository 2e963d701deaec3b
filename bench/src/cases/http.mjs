// secadmin over HTTP vs the framework's and the machine's ceilings, on Node 20 and 24:
// POST /v1/policies/simulate with 1,000 policies against bare Express, and GET
// /v1/users/{id} on PostgreSQL against Express + pg doing the same read.
import autocannon from 'autocannon';
import pg from 'pg';
import { measureAsync } from '../lib/measure.mjs';
import { makePolicies, seeded } from '../lib/policy-workload.mjs';
import {
  freshDatabase,
  NODE24,
  ROOT_KEY,
  SYSTEM_NODE,
  startPeer,
  startSecadmin,
} from '../lib/processes.mjs';

/** @import { User } from '@secadmin/api-types' */
/** @import { Row } from '../lib/measure.mjs' */

const CONNECTIONS = 50;

/**
 * One autocannon run. A run that has not finished a minute past its duration is stopped and
 * made once more, with a warning: a CI run once waited here for good with no request in
 * flight (a request the server never answers would end as an autocannon timeout instead).
 * @param {string} url
 * @param {{ method?: 'GET' | 'POST', body?: string | undefined, durationSeconds: number }} options
 */
async function load(url, { method = 'GET', body, durationSeconds }) {
  for (let attempt = 1; ; attempt++) {
    // Without a callback autocannon answers its tracker, a thenable that can also stop.
    const run = /** @type {Promise<import('autocannon').Result> & { stop(): void }} */ (
      /** @type {unknown} */ (
        autocannon({
          url,
          method,
          connections: CONNECTIONS,
          duration: durationSeconds,
          headers: { authorization: `Bearer ${ROOT_KEY}`, 'content-type': 'application/json' },
          ...(body ? { body } : {}),
        })
      )
    );
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(undefined), (durationSeconds + 60) * 1000);
    });
    const result = await Promise.race([run, late]);
    clearTimeout(timer);
    if (!result) {
      run.stop();
      if (attempt === 2) throw new Error(`${url}: autocannon did not finish, twice`);
      console.warn(`${url}: autocannon did not finish a minute past its duration; once more`);
      continue;
    }
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, p99Ms: result.latency.p99 };
  }
}

/**
 * @param {string} databaseUrl
 * @param {number} count
 * @param {ReturnType<typeof makePolicies>} [policies]
 */
async function insertPolicies(databaseUrl, count, policies = makePolicies(count)) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // One statement for all: a round trip per policy was most of the case's setup.
  await client.query(
    `INSERT INTO policies (id, name, effect, principals, actions, resources, conditions, created_at, updated_at)
     SELECT id, name, effect, principals, actions, resources, conditions, now(), now()
     FROM jsonb_to_recordset($1::jsonb)
       AS p(id text, name text, effect text, principals text[], actions text[], resources text[], conditions jsonb)`,
    [JSON.stringify(policies.map((p) => ({ ...p, conditions: p.conditions ?? null })))],
  );
  await client.query('UPDATE state_versions SET policies = policies + 1 WHERE id = 1');
  await client.end();
}

/** @param {{ smoke: boolean, adminUrl: string }} options */
export async function httpCases({ smoke, adminUrl }) {
  const durationSeconds = smoke ? 1 : 10;
  /** @type {Row[]} */
  const rows = [];
  const database = await freshDatabase(adminUrl);
  try {
    for (const [label, node] of /** @type {const} */ ([
      ['Node 20', SYSTEM_NODE],
      ['Node 24', NODE24],
    ])) {
      const server = await startSecadmin({ node, databaseUrl: database.url });
      try {
        if (label === 'Node 20') await insertPolicies(database.url, 1000);
        const { data: user } = /** @type {{ data: User }} */ (
          await server.api('/v1/users', {
            method: 'POST',
            body: JSON.stringify({
              email: `bench-${label.replace(' ', '')}@example.com`,
              name: 'Bench',
            }),
          })
        );
        const simulateBody = JSON.stringify({
          principal: 'user:u17',
          action: 'documents:read',
          resource: 'documents/17',
          context: { ip: '10.1.2.3' },
        });
        const answer = JSON.stringify(
          await server.api('/v1/policies/simulate', { method: 'POST', body: simulateBody }),
        );
        const userAnswer = JSON.stringify(await server.api(`/v1/users/${user.id}`));

        const simulate = await load(`${server.base}/v1/policies/simulate`, {
          method: 'POST',
          body: simulateBody,
          durationSeconds,
        });
        const read = await load(`${server.base}/v1/users/${user.id}`, { durationSeconds });
        /**
         * The same load on a bare peer answering what secadmin answered, on the same node.
         * @param {'bare-express' | 'bare-http'} name
         * @param {'simulate' | 'read'} kind
         */
        const peerLoad = async (name, kind) => {
          const peer = await startPeer(name, kind === 'simulate' ? answer : userAnswer, node);
          try {
            return await load(`${peer.base}/x`, {
              method: kind === 'simulate' ? 'POST' : 'GET',
              body: kind === 'simulate' ? simulateBody : undefined,
              durationSeconds,
            });
          } finally {
            await peer.stop();
          }
        };
        /** GET /v1/users/{id} on Express 5 + pg: the same read, the same database. */
        const expressPg = await startPeer('express-pg', '', node, {
          DATABASE_URL: database.url,
          API_KEY: ROOT_KEY,
        });
        let readPeer;
        try {
          readPeer = await load(`${expressPg.base}/v1/users/${user.id}`, { durationSeconds });
        } finally {
          await expressPg.stop();
        }
        const peers = {
          'express-pg/read': readPeer,
          'bare-express/simulate': await peerLoad('bare-express', 'simulate'),
          'bare-express/read': await peerLoad('bare-express', 'read'),
          'bare-http/simulate': await peerLoad('bare-http', 'simulate'),
          'bare-http/read': await peerLoad('bare-http', 'read'),
        };
        /** @param {{ rps: number, p99Ms: number }} r */
        const fmt = (r) => `${Math.round(r.rps).toLocaleString('en')} req/s (p99 ${r.p99Ms} ms)`;
        rows.push({
          case: `simulate over HTTP, 1,000 policies, ${label}`,
          peer: 'bare Express 5 (bare node:http)',
          secadmin: fmt(simulate),
          peerFigure: `${fmt(peers['bare-express/simulate'])} (${fmt(peers['bare-http/simulate'])})`,
          ratio: simulate.rps / peers['bare-express/simulate'].rps,
          target: '≥ 0.6× Express; p99 < 10 ms',
          met: simulate.rps >= 0.6 * peers['bare-express/simulate'].rps && simulate.p99Ms < 10,
          detail: { simulate, peers },
        });
        rows.push({
          case: `GET /v1/users/{id} on PostgreSQL, ${label}`,
          peer: 'Express 5 + pg, the same primary-key read behind a cached key check (ceiling: bare Express 5)',
          secadmin: fmt(read),
          peerFigure: `${fmt(peers['express-pg/read'])} (ceiling ${fmt(peers['bare-express/read'])})`,
          ratio: read.rps / peers['express-pg/read'].rps,
          target: '≥ 0.7× Express + pg; p99 < 20 ms',
          met: read.rps >= 0.7 * peers['express-pg/read'].rps && read.p99Ms < 20,
          detail: { read, peers },
        });
      } finally {
        await server.stop();
      }
    }
    rows.push(...(await batchSimulation(database.url, smoke)));
  } finally {
    await database.drop();
  }
  return rows;
}

/**
 * `POST /v1/policies/simulate/batch`: 100 checks over 10,000 stored policies plus 100 draft
 * policies (validated, compiled into their own index, evaluated beside the stored ones).
 * On the same server, AuthZEN: 100 evaluations per request, and a subject search page.
 * @param {string} databaseUrl
 * @param {boolean} smoke
 * @returns {Promise<Row[]>}
 */
async function batchSimulation(databaseUrl, smoke) {
  const server = await startSecadmin({ databaseUrl });
  try {
    const stored = makePolicies(10_000).slice(1000);
    await insertPolicies(databaseUrl, stored.length, stored);
    const drafts = makePolicies(100, seeded(7)).map(
      ({ name, effect, principals, actions, resources }) => ({
        name: `draft-${name}`,
        effect,
        principals,
        actions,
        resources,
      }),
    );
    const checks = Array.from({ length: 100 }, (_, i) => ({
      principal: `user:u${i}`,
      action: 'documents:read',
      resource: `documents/${i}`,
      context: { ip: '10.1.2.3' },
    }));
    const body = JSON.stringify({ checks, draftPolicies: drafts });
    const latency = await measureAsync(
      () => server.api('/v1/policies/simulate/batch', { method: 'POST', body }),
      { runs: smoke ? 5 : 200 },
    );
    const batchRow = {
      case: 'batch simulation over HTTP: 100 checks, 10,000 stored + 100 draft policies',
      peer: '—',
      secadmin: `p50 ${latency.p50Ms.toFixed(1)} ms, p95 ${latency.p95Ms.toFixed(1)} ms`,
      peerFigure: '—',
      ratio: null,
      target: 'p95 < 20 ms',
      met: latency.p95Ms < 20,
      detail: { latency },
    };
    return [batchRow, ...(await authzen(server, smoke))];
  } finally {
    await server.stop();
  }
}

/**
 * AuthZEN over HTTP against the 10,000 stored policies of `batchSimulation`: evaluations, 100
 * per request, and a subject search page (literal `user:u<n>` principals of those policies, at
 * most 500 decided per page).
 * @param {Awaited<ReturnType<typeof startSecadmin>>} server
 * @param {boolean} smoke
 * @returns {Promise<Row[]>}
 */
async function authzen(server, smoke) {
  const evaluations = Array.from({ length: 100 }, (_, i) => ({
    subject: { type: 'user', id: `u${i}` },
    resource: { type: 'documents', id: String(i) },
  }));
  const evaluationsBody = JSON.stringify({
    action: { name: 'documents:read' },
    context: { ip: '10.1.2.3' },
    evaluations,
  });
  const evaluationsLatency = await measureAsync(
    () => server.api('/access/v1/evaluations', { method: 'POST', body: evaluationsBody }),
    { runs: smoke ? 5 : 200 },
  );
  const searchBody = JSON.stringify({
    subject: { type: 'user' },
    action: { name: 'documents:read' },
    resource: { type: 'documents', id: '17' },
    page: { limit: 1000 },
  });
  const searchLatency = await measureAsync(
    () => server.api('/access/v1/search/subject', { method: 'POST', body: searchBody }),
    { runs: smoke ? 5 : 100 },
  );
  /** @param {{ p50Ms: number, p95Ms: number }} l */
  const fmt = (l) => `p50 ${l.p50Ms.toFixed(1)} ms, p95 ${l.p95Ms.toFixed(1)} ms`;
  return [
    {
      case: 'AuthZEN evaluations over HTTP: 100 per request, 10,000 stored policies',
      peer: '—',
      secadmin: fmt(evaluationsLatency),
      peerFigure: '—',
      ratio: null,
      target: 'p95 < 20 ms',
      met: evaluationsLatency.p95Ms < 20,
      detail: { latency: evaluationsLatency },
    },
    {
      case: 'AuthZEN subject search over HTTP: one page (500 candidates decided), 10,000 stored policies',
      peer: '—',
      secadmin: fmt(searchLatency),
      peerFigure: '—',
      ratio: null,
      target: 'p95 < 100 ms',
      met: searchLatency.p95Ms < 100,
      detail: { latency: searchLatency },
    },
  ];
}
