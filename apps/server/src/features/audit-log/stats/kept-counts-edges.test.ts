import type { components } from '@secadmin/api-types';
import { Prisma } from '@secadmin/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionOn } from '../../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { parseSearchQuery } from '../search/query.js';
import { columnsMatch, searchMatch } from '../search/search-sql.js';

type Entry = components['schemas']['LogEntryInput'];
type LogStats = components['schemas']['LogStats'];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('kept counts at their edges', () => {
  let server: TestServer;
  const ingest = async (entries: Entry[]) => {
    for (let i = 0; i < entries.length; i += 500) {
      const { response } = await server.client.POST('/v1/logs', {
        body: { entries: entries.slice(i, i + 500) },
      });
      expect(response.status).toBe(201);
    }
  };
  const stats = async (body: components['schemas']['LogStatsRequest']) => {
    const { data, response } = await server.client.POST('/v1/logs/stats', { body });
    expect(response.status).toBe(200);
    return data?.data as LogStats;
  };

  beforeAll(async () => {
    server = await startTestServer();
  }, 120_000);
  afterAll(() => server?.stop());

  // columnsMatch finds exactly what searchMatch finds, on events the
  // API would refuse but the column may hold (case, backslash, quote, space, unicode, `*`, `:`).
  it('columnsMatch agrees with searchMatch on odd events and odd queries', async () => {
    const events = [
      'user.login',
      'User.Login',
      'user.logout',
      'user.',
      'user.*x',
      'a\\b',
      "it's",
      'with space',
      'ünïcode.x',
      'İx',
      'i̇x',
      'x:*',
      'a:b',
      '&|!',
      ')(',
      "'quoted'",
      'event:user.login',
    ];
    const at = '2024-03-01T12:00:00Z';
    let i = 0;
    for (const event of events)
      for (const result of ['success', 'failure'])
        await server.db.query(
          `INSERT INTO log_entries (id, timestamp, event, actor_type, result, origin)
           VALUES ($1, $2, $3, 'user', $4, 'api')`,
          [`log_cm_${i++}`, at, event, result],
        );
    const queries = [
      'event:user.login',
      'event:User.Login',
      'event:USER.*',
      'event:user.*',
      'event:*',
      '-event:*',
      'event:a\\b',
      "event:it's",
      'event:"with space"',
      'event:ünïcode.*',
      'event:İ*',
      'event:İx',
      'event:user.\\*',
      'event:**',
      'event:a:b',
      'event:x:*',
      'event:&|!',
      'event:)(',
      "event:'quoted'",
      'event:"user.*"',
      'event:event:user.login',
      'event:user.log*',
      'event:user.login OR -result:failure',
      '-event:user.* OR event:user.login',
      '-event:user.* -result:success',
      'result:failure event:u*',
      'event:user.login OR event:a:b OR -result:success',
    ];
    const countOf = async (where: Prisma.Sql) => {
      const sql = Prisma.sql`SELECT count(*)::int AS n FROM log_entries WHERE timestamp = ${new Date(at)} AND ${where}`;
      const [row] = await server.db.query<{ n: number }>(sql.text, sql.values);
      return row?.n;
    };
    const differ: string[] = [];
    for (const q of queries) {
      const query = parseSearchQuery(q);
      const columns = columnsMatch(query);
      expect(columns, q).toBeDefined();
      const bySearch = await countOf(searchMatch(query));
      const byColumns = await countOf(columns as Prisma.Sql);
      if (bySearch !== byColumns) differ.push(`${q}: search ${bySearch}, columns ${byColumns}`);
    }
    await server.db.query(`DELETE FROM log_entries WHERE id LIKE 'log_cm_%'`);
    expect(differ).toEqual([]);
  });

  // Exact hour and day boundaries, ranges under an hour, milliseconds.
  it('counts entries at exact hour and day boundaries as the entries do', async () => {
    const D = Date.UTC(2025, 2, 10);
    const instants = [
      D - 1,
      D,
      D + 1,
      D + HOUR_MS - 1,
      D + HOUR_MS,
      D + DAY_MS - 1,
      D + DAY_MS,
      D + DAY_MS + 1,
      D + 2 * DAY_MS - 1,
      D + 2 * DAY_MS,
    ];
    await ingest(
      instants.map((t, i) => ({
        event: i % 2 ? 'user.login' : 'file.read',
        actor: i % 3 ? { type: 'user', id: `a${i % 4}` } : { type: 'service' },
        ...(i % 2 ? { target: { type: 'doc', id: 't' } } : {}),
        result: i % 5 ? 'success' : 'failure',
        timestamp: new Date(t).toISOString(),
      })),
    );
    await server.sealer.flush();
    const ranges: [number, number][] = [
      [D, D + HOUR_MS],
      [D - 1, D + HOUR_MS],
      [D + 1, D + HOUR_MS],
      [D, D + HOUR_MS - 1],
      [D - 1, D + 1],
      [D, D + DAY_MS],
      [D - 1, D + DAY_MS + 1],
      [D + 1, D + 2 * DAY_MS - 1],
      [D - HOUR_MS, D + 2 * DAY_MS + HOUR_MS],
    ];
    for (const [from, to] of ranges)
      for (const interval of ['1h', '6h', '1d'] as const)
        for (const groupBy of [
          undefined,
          ['actor.id'] as const,
          ['event', 'target.type', 'actor.id'] as const,
        ]) {
          const body = {
            from: new Date(from).toISOString(),
            to: new Date(to).toISOString(),
            interval,
            ...(groupBy ? { groupBy: [...groupBy] } : {}),
          };
          const inRange = instants.filter((t) => t >= from && t < to);
          const answer = await stats(body);
          expect(answer.total, JSON.stringify(body)).toBe(inRange.length);
          const width = { '1h': HOUR_MS, '6h': 6 * HOUR_MS, '1d': DAY_MS }[interval];
          for (const bucket of answer.buckets) {
            const start = Date.parse(bucket.start);
            const want = inRange.filter((t) => t >= start && t < start + width).length;
            expect(bucket.count, `${JSON.stringify(body)} ${bucket.start}`).toBe(want);
          }
          if (groupBy?.includes('actor.id')) {
            const actors = instants
              .map((t, i) => ({ t, id: i % 3 ? `a${i % 4}` : null }))
              .filter(({ t, id }) => id !== null && t >= from && t < to);
            const sum = (answer.facets?.['actor.id'] ?? []).reduce((s, f) => s + f.count, 0);
            expect(sum, JSON.stringify(body)).toBe(actors.length);
          }
        }
  });

  // Row-by-row retention (the only kind while a log stream is active, and always for the
  // default partition) subtracts down to zero: without a clean-up the count tables would keep
  // a row per hour × combination and per day × actor of everything ever removed.
  it('row-by-row retention leaves no zero-count rows behind', async () => {
    const old = Date.UTC(2024, 0, 10);
    await ingest(
      Array.from({ length: 300 }, (_, i) => ({
        event: `app.event_${i % 7}`,
        actor: { type: 'user', id: `actor_${i}` },
        result: 'success' as const,
        timestamp: new Date(old + i * 10 * 60_000).toISOString(),
      })),
    );
    await server.sealer.flush();
    // What a log stream that has delivered everything holds back: nothing, but months go row by row.
    const retention = retentionOn(server.db, 30, async () => Number.MAX_SAFE_INTEGER);
    expect((await retention.apply()).removedEntries).toBeGreaterThanOrEqual(300);
    const [left] = await server.db.query<{ hours: number; actors: number }>(
      `SELECT (SELECT count(*)::int FROM log_entry_counts WHERE n <= 0) AS hours,
              (SELECT count(*)::int FROM log_actor_counts WHERE n <= 0) AS actors`,
    );
    expect(left).toEqual({ hours: 0, actors: 0 });
  });

  // In a database with a publication of all tables (logical replication, CDC, a managed
  // blue/green upgrade), an UPDATE or DELETE of a table without a primary key is refused:
  // log_entry_counts' natural key has a nullable column, so it has an id of its own.
  it('retention and sealing still work under a publication of all tables', async () => {
    const admin = new pg.Client({ connectionString: server.config.databaseUrl });
    await admin.connect();
    try {
      await admin.query('CREATE PUBLICATION kept_counts_publication FOR ALL TABLES');
      const old = Date.UTC(2024, 1, 10);
      await ingest(
        Array.from({ length: 40 }, (_, i) => ({
          event: 'user.login',
          actor: { type: 'user', id: `pub_${i % 3}` },
          result: 'success' as const,
          timestamp: new Date(old + (i % 20) * 60_000 + Math.floor(i / 20)).toISOString(),
        })),
      );
      await server.sealer.flush();
      expect((await retentionOn(server.db, 30).apply()).removedEntries).toBeGreaterThanOrEqual(40);
    } finally {
      await admin.query('DROP PUBLICATION IF EXISTS kept_counts_publication');
      await admin.end();
    }
  });

  // An instance of the previous version (rolling upgrade) would seal without counting: its
  // entries would leave the queue uncounted and every later answer from the counts miss them. Here its seal statement runs (the shape of 404469e's `seal`, chain row
  // and dequeue in one statement) under the sealer's lock; the counts must still agree with the
  // entries afterwards (either the old statement is refused, or the entries get counted).
  it('a seal by the previous version cannot leave sealed entries uncounted', async () => {
    await server.sealer.flush();
    const from = Date.UTC(2025, 5, 1);
    const holder = new pg.Client({ connectionString: server.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7246614222)');
      await ingest(
        Array.from({ length: 50 }, (_, i) => ({
          event: 'user.login',
          actor: { type: 'user', id: `old_${i % 5}` },
          result: 'success' as const,
          timestamp: new Date(from + i * 60_000).toISOString(),
        })),
      );
      try {
        await holder.query('SAVEPOINT old');
        await holder.query(
          `WITH head AS (SELECT coalesce(max(seq), 0) AS seq FROM log_chain),
             dequeued AS (DELETE FROM log_seal_queue RETURNING n, entry_id)
             INSERT INTO log_chain (seq, entry_id, hash, prev_hash, sealed_at, canonical_version)
             SELECT (SELECT seq FROM head) + row_number() OVER (ORDER BY n), entry_id,
                    md5(entry_id), md5(entry_id), now(), 2
             FROM dequeued`,
        );
        await holder.query('RELEASE SAVEPOINT old');
      } catch {
        await holder.query('ROLLBACK TO SAVEPOINT old');
      }
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    await server.sealer.flush();
    const answer = await stats({
      from: new Date(from).toISOString(),
      to: new Date(from + DAY_MS).toISOString(),
      interval: '1h',
    });
    expect(answer.total).toBe(50);
  });
}, 180_000);
