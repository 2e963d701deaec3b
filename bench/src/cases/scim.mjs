// The lookup an identity provider makes before each create: GET /scim/v2/Users with
// `filter=userName eq "…"`, among 100,000 users on PostgreSQL (the target p95 < 20 ms).
import pg from 'pg';
import { measureInterleavedAsync } from '../lib/measure.mjs';
import { freshDatabase, startSecadmin } from '../lib/processes.mjs';

/** @import { Row } from '../lib/measure.mjs' */

/**
 * @param {string} databaseUrl
 * @param {number} count
 */
async function insertUsers(databaseUrl, count) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(
    `INSERT INTO users (id, email, email_lower, name, roles, external_id, created_at, updated_at)
     SELECT 'user_bench' || lpad(i::text, 7, '0'), 'bench' || i || '@example.com',
            'bench' || i || '@example.com', 'Bench ' || i, ARRAY['bench-' || (i % 50)],
            'ext-' || i, now() - make_interval(secs => $1 - i), now()
     FROM generate_series(1, $1) AS i`,
    [count],
  );
  await client.query('ANALYZE users');
  await client.end();
}

/** @param {{ smoke: boolean, adminUrl: string }} options */
export async function scimCases({ smoke, adminUrl }) {
  const count = smoke ? 1_000 : 100_000;
  const database = await freshDatabase(adminUrl);
  try {
    const server = await startSecadmin({ databaseUrl: database.url });
    try {
      await insertUsers(database.url, count);
      const lookup = (/** @type {number} */ i) => {
        const n = 1 + ((i * 7919) % count);
        const filter = encodeURIComponent(`userName eq "BENCH${n}@example.com"`);
        return server.api(`/scim/v2/Users?filter=${filter}`).then((body) => {
          if (/** @type {{ totalResults: number }} */ (body).totalResults !== 1)
            throw new Error(`bench${n}: not found exactly once`);
        });
      };
      // The `/v1` lookup by email on the same server, interleaved: what SCIM adds to it.
      const v1 = (/** @type {number} */ i) =>
        server.api(`/v1/users?email=bench${1 + ((i * 7919) % count)}%40example.com`);
      const [latency, v1Latency] = await measureInterleavedAsync([lookup, v1], {
        runs: smoke ? 5 : 500,
      });
      return /** @type {Row[]} */ ([
        {
          case: `SCIM GET /Users?filter=userName eq, ${count.toLocaleString('en')} users on PostgreSQL`,
          peer: 'GET /v1/users?email= (same server)',
          secadmin: `p50 ${latency.p50Ms.toFixed(1)} ms, p95 ${latency.p95Ms.toFixed(1)} ms`,
          peerFigure: `p50 ${v1Latency.p50Ms.toFixed(1)} ms, p95 ${v1Latency.p95Ms.toFixed(1)} ms`,
          ratio: latency.p95Ms / v1Latency.p95Ms,
          target: 'p95 < 20 ms',
          met: latency.p95Ms < 20,
          detail: { latency, v1Latency },
        },
      ]);
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}
