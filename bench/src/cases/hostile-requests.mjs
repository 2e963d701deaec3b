// What the heaviest request shapes a client may send cost everyone else: `/healthz`, one
// request after another, while each runs on the server (issue 20's attacks). The server's
// tests assert what keeps these low (bounded work, paced slices); this measures it. And how
// long the widest ingest takes against its transaction's limit.
import pg from 'pg';
import { latencies } from '../lib/measure.mjs';
import { freshDatabase, ROOT_KEY, startSecadmin } from '../lib/processes.mjs';
import { untilSearchable } from '../lib/searchable.mjs';

/** @import { Row } from '../lib/measure.mjs' */

/** @param {number} keys */
const manyKeys = (keys) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 1]));
const word = 'zebrax';
/** @param {number} chars */
const repeated = (chars) => `${word} `.repeat(Math.floor(chars / (word.length + 1)));

/**
 * The hostile requests: a path and a body, and the statuses each may answer.
 * @param {boolean} smoke
 * @returns {{ name: string, path: string, body: string, ok: number[] }[]}
 */
function hostile(smoke) {
  const entries = smoke ? 100 : 1000;
  const noteChars = Math.floor((10 * 1024 * 1024 - 64 * 1024) / 1000) - 200;
  const levels = smoke ? 500_000 : 5_000_000;
  const glob = (/** @type {number} */ i) => ({
    name: `d${i}`,
    effect: 'allow',
    principals: ['service:victim'],
    actions: ['*'],
    resources: Array.from(
      { length: 60 },
      (_, j) => `*${'a'.repeat(150)}${String.fromCharCode(98 + ((i + j) % 20))}*`,
    ),
  });
  return [
    {
      name: `ingest of ${entries.toLocaleString('en')} entries, ${smoke ? 'a tenth of ' : ''}10 MiB`,
      path: '/v1/logs',
      body: JSON.stringify({
        entries: Array.from({ length: entries }, (_, i) => ({
          event: 'document.uploaded',
          actor: { type: 'user', id: `user_${i}` },
          result: 'success',
          metadata: { note: `${i} ${'lorem ipsum '.repeat(noteChars / 12)}`.slice(0, noteChars) },
        })),
      }),
      ok: [201],
    },
    {
      name: `a body nested ${levels.toLocaleString('en')} levels deep`,
      path: '/v1/logs',
      body: `{"entries":${'['.repeat(levels)}${']'.repeat(levels)}}`,
      ok: [400],
    },
    {
      name: 'a body of 90,000 keys',
      path: '/v1/policies',
      body: JSON.stringify({ name: 'p', effect: 'allow', ...manyKeys(90_000) }),
      ok: [400],
    },
    {
      name: 'batch simulation: 100 checks on 512-character resources, 5 drafts of 60 `*a…a*` globs',
      path: '/v1/policies/simulate/batch',
      body: JSON.stringify({
        checks: Array.from({ length: 100 }, (_, i) => ({
          principal: 'service:victim',
          action: 'docs:read',
          resource: `${'a'.repeat(508)}${String(i).padStart(4, '0')}`,
        })),
        draftPolicies: Array.from({ length: 5 }, (_, i) => glob(i)),
        useStored: false,
        explain: true,
      }),
      ok: [200],
    },
    {
      name: 'search of the most terms over 100 of the largest entries, a page of 1,000',
      path: '/v1/logs/search',
      body: JSON.stringify({ query: Array(64).fill(word).join(' '), limit: 1000 }),
      ok: [200],
    },
  ];
}

/**
 * @param {string} base
 * @param {string} path
 * @param {string} body
 */
const post = (base, path, body) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ROOT_KEY}`, 'content-type': 'application/json' },
    body,
  });

/** @param {{ smoke: boolean, adminUrl: string }} options */
export async function hostileRequestCases({ smoke, adminUrl }) {
  // Each request at least `rounds` times, and until `/healthz` has answered `probes` times:
  // a percentile of enough samples, however quickly the request is refused.
  const rounds = smoke ? 1 : 5;
  const probes = smoke ? 5 : 200;
  /** @type {Row[]} */
  const rows = [];
  const database = await freshDatabase(adminUrl);
  const server = await startSecadmin({ databaseUrl: database.url });
  try {
    // The entries the search reads: full of its one word, the largest metadata and User-Agent.
    await server.api('/v1/logs', {
      method: 'POST',
      body: JSON.stringify({
        entries: Array.from({ length: 100 }, () => ({
          event: 'user.login',
          actor: { type: 'user', id: 'attacker' },
          result: 'failure',
          context: { userAgent: repeated(1024) },
          metadata: { note: repeated(16 * 1024 - 64) },
        })),
      }),
    });
    // Searched once the analytics store holds them (it is fed from the sealed log).
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    await untilSearchable(server.api, db).finally(() => db.end());
    for (const { name, path, body, ok } of hostile(smoke)) {
      // Warm: what is measured is the work, not the first compilation of its code.
      await (await post(server.base, path, body)).arrayBuffer();
      /** @type {number[]} */
      const health = [];
      let attacking = true;
      const probe = (async () => {
        while (attacking) {
          const started = performance.now();
          await (await fetch(`${server.base}/healthz`)).arrayBuffer();
          health.push(performance.now() - started);
        }
      })();
      try {
        for (let i = 0; i < rounds || health.length < probes; i++) {
          const res = await post(server.base, path, body);
          await res.arrayBuffer();
          if (!ok.includes(res.status)) throw new Error(`${name}: answered ${res.status}`);
        }
      } finally {
        attacking = false;
        await probe;
      }
      const during = latencies(health);
      rows.push({
        case: `/healthz while ${name} runs (${during.count} requests, one at a time)`,
        peer: '—',
        secadmin: `p50 ${during.p50Ms.toFixed(1)} ms, p99 ${during.p99Ms.toFixed(1)} ms`,
        peerFigure: '—',
        ratio: null,
        target: 'p99 < 100 ms',
        met: during.p99Ms < 100,
      });
    }

    // The widest ingest: 1,000 entries of 850 metadata keys (as much as 16 KiB holds).
    const metadata = Object.fromEntries(
      Array.from({ length: 850 }, (_, i) => [`k${String(i).padStart(3, '0')}`, i]),
    );
    const wide = JSON.stringify({
      entries: Array.from({ length: smoke ? 100 : 1000 }, (_, i) => ({
        event: 'document.uploaded',
        actor: { type: 'user', id: `user_${i}` },
        result: 'success',
        metadata,
      })),
    });
    const started = performance.now();
    const res = await post(server.base, '/v1/logs', wide);
    await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 201) throw new Error(`wide ingest: answered ${res.status}`);
    rows.push({
      case: `ingest of ${smoke ? 100 : 1000} entries of 850 metadata keys, one request`,
      peer: '—',
      secadmin: `${(ms / 1000).toFixed(2)} s`,
      peerFigure: '—',
      ratio: null,
      target: '< 10 s (half its transaction limit)',
      met: ms < 10_000,
    });
  } finally {
    await server.stop();
    await database.drop();
  }
  return rows;
}
