import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../../test/helpers/server.js';
import { waitFor } from '../../../test/helpers/wait.js';

const RANGE = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-07T00:00:00.000Z' };
const searchBody = JSON.stringify({ query: 'login', ...RANGE });
const statsBody = JSON.stringify({ query: 'login', ...RANGE, groupBy: ['event'] });

/** A request's status, `Retry-After` and body. */
async function answerOf(send: () => Promise<Response>) {
  const res = await send();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await json(res) };
}

type Answer = Awaited<ReturnType<typeof answerOf>>;

/**
 * Every statement on log_entries waits while the test's own connection holds this lock, holding
 * the connection it runs on: what a slow scan of a large log does, without the data.
 */
async function lockLog(databaseUrl: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE log_entries IN ACCESS EXCLUSIVE MODE');
  return {
    release: async () => {
      await client.query('COMMIT').catch(() => {});
      await client.end();
    },
  };
}

/** The server's searches, statistics and list pages waiting for the log's lock. */
async function waitingOnLock(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND wait_event_type = 'Lock'
         AND (query LIKE '%ORDER BY timestamp DESC%' OR query LIKE '%date_bin(%')`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * A security review: a dozen slow searches or statistics at once took every connection of the
 * pool, so that a plain `GET /v1/users` and `/readyz` answered 503, and their statements ran on
 * in PostgreSQL after the requests had given up.
 */
describe('searches, statistics and lists beyond what an instance runs at once, on postgres', () => {
  const CONCURRENT = 2;
  const QUEUED = 2;
  const SENT = 12;
  let server: TestServer;
  let lock: { release(): Promise<void> } | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      // Long past the test: the scans here end when the lock is released, not by their bound.
      logScans: { concurrent: CONCURRENT, queued: QUEUED, waitMs: 500, timeoutMs: 60_000 },
    });
    const { response } = await server.client.POST('/v1/logs', {
      body: {
        entries: [
          {
            event: 'user.login',
            actor: { type: 'user', id: 'user_a' },
            result: 'success',
            timestamp: '2026-01-02T10:00:00.000Z',
          },
        ],
      },
    });
    expect(response.status).toBe(201);
  });
  afterEach(async () => {
    await lock?.release();
    lock = undefined;
  });
  afterAll(() => server?.stop());

  it('serves the rest of the API, refuses the excess with 503 and Retry-After, and finishes the admitted ones', async () => {
    const url = server.config.databaseUrl as string;
    lock = await lockLog(url);
    const answers: Answer[] = [];
    const kinds = [
      () => postText(server, '/v1/logs/search', searchBody),
      () => postText(server, '/v1/logs/stats', statsBody),
      () =>
        raw(server, `/v1/logs?from=${RANGE.from}&to=${RANGE.to}`, {
          headers: { authorization: `Bearer ${server.rootKey}` },
        }),
    ];
    const sent = Array.from({ length: SENT }, (_, i) =>
      answerOf(kinds[i % kinds.length] as () => Promise<Response>).then((answer) => {
        answers.push(answer);
        return answer;
      }),
    );
    // The admitted ones hold their connections on the lock; the rest are refused, the queued
    // ones once their wait is over.
    await waitFor(
      'the scans beyond the admitted ones to be answered',
      () => answers.length >= SENT - CONCURRENT,
    );
    await waitFor(
      'the admitted scans to wait for the lock',
      async () => (await waitingOnLock(url)) >= CONCURRENT,
    );
    expect(await waitingOnLock(url)).toBe(CONCURRENT);

    const users = await answerOf(() =>
      raw(server, '/v1/users', { headers: { authorization: `Bearer ${server.rootKey}` } }),
    );
    const ready = await answerOf(() => raw(server, '/readyz'));
    expect(users.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
    // Answered while the lock still holds every connection the scans took: neither waited for one.

    expect(answers).toHaveLength(SENT - CONCURRENT);
    for (const refused of answers) {
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('unavailable');
      expect(refused.body.error.message).toMatch(/searches, statistics and lists/);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }

    await lock.release();
    lock = undefined;
    const all = await Promise.all(sent);
    const served = all.filter((answer) => answer.status === 200);
    expect(served).toHaveLength(CONCURRENT);
  });

  it('takes scans again once the busy ones are done', async () => {
    const res = await postText(server, '/v1/logs/search', searchBody);
    expect(res.status).toBe(200);
    expect((await json(res)).meta.totalHits).toBe(1);
  });
});

describe('a search or statistics past its time bound, on postgres', () => {
  const TIMEOUT_MS = 300;
  let server: TestServer;
  let lock: { release(): Promise<void> } | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      logScans: { concurrent: 2, queued: 2, waitMs: 500, timeoutMs: TIMEOUT_MS },
    });
  });
  afterEach(async () => {
    await lock?.release();
    lock = undefined;
  });
  afterAll(() => server?.stop());

  it.each([
    ['/v1/logs/search', searchBody],
    ['/v1/logs/stats', statsBody],
  ])('%s is stopped in the database and answers 503', async (path, body) => {
    const url = server.config.databaseUrl as string;
    lock = await lockLog(url);
    // Without a bound the request waits for the lock for as long as it is held.
    const answer = await answerOf(() =>
      raw(server, path, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(15_000),
      }),
    );
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('unavailable');
    expect(answer.body.error.message).toMatch(/did not finish this request within its time bound/);
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    // Stopped in PostgreSQL, not merely given up on: nothing of it still waits there.
    expect(await waitingOnLock(url)).toBe(0);

    await lock.release();
    lock = undefined;
    const again = await postText(server, path, body);
    expect(again.status).toBe(200);
  });
});

describe('readiness while every connection of the pool waits, on postgres', () => {
  let server: TestServer;
  let lock: { release(): Promise<void> } | undefined;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await lock?.release();
    await server?.stop();
  });

  it('answers 200 at once: it asks on a connection of its own', async () => {
    const url = server.config.databaseUrl as string;
    lock = await lockLog(url);
    // Ingests are writes, not scans: nothing limits how many wait for the lock, each holding
    // a connection of the pool.
    const ingests = Array.from({ length: 12 }, (_, i) =>
      server.client.POST('/v1/logs', {
        body: {
          entries: [
            { event: 'user.login', actor: { type: 'user', id: `user_${i}` }, result: 'success' },
          ],
        },
      }),
    );
    await waitFor('every connection of the pool to wait for the lock', async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return (rows[0]?.n ?? 0) >= 10;
      } finally {
        await client.end();
      }
    });
    const ready = await answerOf(() => raw(server, '/readyz'));
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
    // Answered while every pooled connection waits for the lock: it needed none of them.

    await lock.release();
    lock = undefined;
    for (const { response } of await Promise.all(ingests)) expect(response.status).toBe(201);
  });
});
