import { Session } from 'chdb';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
 * the connection it runs on: what a slow list page of a large log does, without the data.
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

/** The server's list pages waiting for the log's lock. */
async function listsWaitingOnLock(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND wait_event_type = 'Lock' AND query LIKE '%ORDER BY timestamp DESC%'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/** A statement of a search or statistics: the only ones that carry a time bound. */
const isScanStatement = (sql: string) => sql.includes('max_execution_time');
/** One per search (its hits; its count runs beside them) and one per statistics. */
const isRequestStatement = (sql: string) =>
  isScanStatement(sql) && (sql.includes('LIMIT') || sql.includes('GROUPING SETS'));

type Run = (
  this: Session,
  sql: string,
  params: object,
  opts?: object,
) => ReturnType<Session['queryBindAsync']>;

/**
 * Replaces how the embedded engine runs the statements of searches and statistics (the feeder's
 * run as they do): `run` gets each with the engine's own way of running it.
 */
function onScanStatements(
  run: (sql: string, engine: (sql: string) => ReturnType<Run>) => ReturnType<Run>,
) {
  const original = Session.prototype.queryBindAsync as Run;
  return vi.spyOn(Session.prototype, 'queryBindAsync').mockImplementation(function (
    this: Session,
    sql,
    params,
    opts,
  ) {
    if (!isScanStatement(sql)) return original.call(this, sql, params, opts);
    return run(sql, (other) => original.call(this, other, params, opts));
  });
}

/** Searches and statistics wait in the store until `release`: what a slow store does. */
function holdScansInStore() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held: string[] = [];
  const spy = onScanStatements(async (sql, engine) => {
    held.push(sql);
    await released;
    return engine(sql);
  });
  return {
    requests: () => held.filter(isRequestStatement).length,
    release: () => {
      spy.mockRestore();
      release();
    },
  };
}

/**
 * A security review: a dozen slow searches or statistics at once took every connection of the
 * pool, so that a plain `GET /v1/users` and `/readyz` answered 503. Searches and statistics read
 * the analytics store now, lists PostgreSQL: one gate still admits them all.
 */
describe('searches, statistics and lists beyond what an instance runs at once', () => {
  const CONCURRENT = 2;
  const QUEUED = 2;
  const SENT = 12;
  let server: TestServer;
  let lock: { release(): Promise<void> } | undefined;
  let store: ReturnType<typeof holdScansInStore> | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      // Long past the test: the scans here end when they are let go, not by their bound.
      logScans: {
        concurrent: CONCURRENT,
        queued: QUEUED,
        waitMs: 500,
        timeoutMs: 60_000,
        // One principal sends them all: its own shares are not what this test is about.
        perPrincipal: { running: SENT, waiting: SENT },
      },
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
    await server.searchable();
  });
  afterEach(async () => {
    store?.release();
    store = undefined;
    await lock?.release();
    lock = undefined;
  });
  afterAll(() => server?.stop());

  it('serves the rest of the API, refuses the excess with 503 and Retry-After, and finishes the admitted ones', async () => {
    const url = server.config.databaseUrl as string;
    store = holdScansInStore();
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
    // The admitted ones wait in the store or on the lock; the rest are refused, the queued
    // ones once their wait is over.
    await waitFor(
      'the scans beyond the admitted ones to be answered',
      () => answers.length >= SENT - CONCURRENT,
    );
    const admitted = async () => (store?.requests() ?? 0) + (await listsWaitingOnLock(url));
    await waitFor(
      'the admitted scans to be under way',
      async () => (await admitted()) >= CONCURRENT,
    );
    expect(await admitted()).toBe(CONCURRENT);

    const users = await answerOf(() =>
      raw(server, '/v1/users', { headers: { authorization: `Bearer ${server.rootKey}` } }),
    );
    const ready = await answerOf(() => raw(server, '/readyz'));
    expect(users.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('ok');
    // Answered while the admitted scans still wait: neither waited for them.

    expect(answers).toHaveLength(SENT - CONCURRENT);
    for (const refused of answers) {
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('unavailable');
      expect(refused.body.error.message).toMatch(/searches, statistics and lists/);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    }

    store.release();
    store = undefined;
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
    expect((await postText(server, '/v1/logs/stats', statsBody)).status).toBe(200);
  });
});

/**
 * An outside attack: one key with logs:search sent heavy searches and statistics ten at a time,
 * and every other key's list, search and statistics waited behind them for over a second.
 */
describe('one principal flooding the audit log with searches', () => {
  let server: TestServer;
  let store: ReturnType<typeof holdScansInStore> | undefined;
  let flooder: string;
  let other: string;

  beforeAll(async () => {
    server = await startTestServer({
      logScans: {
        concurrent: 3,
        queued: 10,
        waitMs: 60_000,
        timeoutMs: 60_000,
        perPrincipal: { running: 2, waiting: 3 },
      },
    });
    await server.client.POST('/v1/policies', {
      body: {
        name: 'searchers',
        effect: 'allow',
        principals: ['service:flooder', 'service:other'],
        actions: ['logs:search', 'logs:list'],
        resources: ['*'],
      },
    });
    const key = async (principal: string) =>
      (await server.client.POST('/v1/api-keys', { body: { name: principal, principal } })).data
        ?.data.secret as string;
    flooder = await key('service:flooder');
    other = await key('service:other');
    await server.searchable();
  });
  afterEach(() => {
    store?.release();
    store = undefined;
  });
  afterAll(() => server?.stop());

  const search = (key: string) =>
    answerOf(() => postText({ url: server.url, rootKey: key }, '/v1/logs/search', searchBody));

  it('runs at most its share, queues a few more, refuses the rest with 429; another principal starts at once', async () => {
    store = holdScansInStore();
    const answers: Answer[] = [];
    const flood = Array.from({ length: 8 }, () =>
      search(flooder).then((answer) => {
        answers.push(answer);
        return answer;
      }),
    );
    // Two run (held in the store), three wait their turn: the other three are answered at once.
    await waitFor('the flood beyond its share to be answered', () => answers.length >= 3);
    await waitFor('its share to be in the store', () => (store?.requests() ?? 0) >= 2);
    expect(answers).toHaveLength(3);
    for (const answer of answers) {
      expect(answer.status).toBe(429);
      expect(answer.body.error.message).toMatch(/already has 5 audit-log searches/);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // The flooder's three queued searches do not stand before another principal's.
    const asked = search(other);
    await waitFor('the other principal to be admitted', () => (store?.requests() ?? 0) >= 3);
    expect(store.requests()).toBe(3);
    store.release();
    store = undefined;
    expect((await asked).status).toBe(200);
    const all = await Promise.all(flood);
    expect(all.filter((answer) => answer.status === 200)).toHaveLength(5);
  });
});

describe('a search or statistics the store does not finish within its bound, or cannot answer', () => {
  let server: TestServer;
  let spy: { mockRestore(): void } | undefined;

  beforeAll(async () => {
    // A bound the spied statement never finishes within, and the real ones always do, however
    // loaded the machine.
    server = await startTestServer({
      logScans: {
        concurrent: 2,
        queued: 2,
        waitMs: 500,
        timeoutMs: 3_000,
        perPrincipal: { running: 2, waiting: 2 },
      },
    });
  });
  afterEach(() => {
    spy?.mockRestore();
    spy = undefined;
  });
  afterAll(() => server?.stop());

  const send = (path: string, body: string) => answerOf(() => postText(server, path, body, {}));

  it.each([
    ['/v1/logs/search', searchBody],
    ['/v1/logs/stats', statsBody],
  ])('%s is stopped by the engine at its bound and answers 503', async (path, body) => {
    const bounds: string[] = [];
    // The request's own statement bound, on a statement no machine finishes within it.
    spy = onScanStatements((sql, engine) => {
      const settings = sql.slice(sql.lastIndexOf('SETTINGS'));
      bounds.push(settings);
      return engine(`SELECT sum(number) FROM numbers(10000000000000) ${settings}`);
    });
    const answer = await send(path, body);
    expect(bounds.length).toBeGreaterThan(0);
    for (const bound of bounds) expect(bound).toMatch(/^SETTINGS max_execution_time = 3\s*$/);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('unavailable');
    expect(answer.body.error.message).toMatch(
      /search store stopped this request at its time bound/,
    );
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);

    spy.mockRestore();
    spy = undefined;
    expect((await send(path, body)).status).toBe(200);
  });

  it.each([
    ['/v1/logs/search', searchBody],
    ['/v1/logs/stats', statsBody],
  ])('%s answers 503, not 500, while the store fails', async (path, body) => {
    spy = onScanStatements(() =>
      Promise.reject(new Error('Code: 210. DB::NetException: Connection refused (NETWORK_ERROR)')),
    );
    const answer = await send(path, body);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('unavailable');
    expect(answer.body.error.message).toMatch(/search store cannot answer/);
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    // Readiness does not ask the store: it answers as before.
    expect((await raw(server, '/readyz')).status).toBe(200);

    spy.mockRestore();
    spy = undefined;
    expect((await send(path, body)).status).toBe(200);
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
