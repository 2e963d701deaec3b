import { type LogEntry, Prisma } from '@secadmin/db';
import { REDACTED } from '@secadmin/log-chain';
import { arrayLiteral } from '../../storage/array-literal.js';
import type { Connection } from '../../storage/connection.js';
import { commit } from './chain/commitments.js';
import type { LogOrigin } from './origin.js';
import type { SearchQuery } from './search/query.js';
import { searchMatch, searchScope } from './search/search-sql.js';

/** A stored entry and its place in the hash chain (all null until it is sealed). */
export type LogRow = Omit<LogEntry, 'search'> & {
  seq: number | null;
  hash: string | null;
  prevHash: string | null;
  canonicalVersion: number | null;
};
export type NewLogRow = Omit<Prisma.LogEntryCreateManyInput, 'digests' | 'salts'>;

/** The log_entries columns under the names of the Prisma model, for plain SQL. */
const ENTRY_COLUMNS = Prisma.sql`
  id, timestamp, event, actor_id AS "actorId", actor_email AS "actorEmail",
  actor_email_redacted AS "actorEmailRedacted", actor_type AS "actorType",
  target_id AS "targetId", target_type AS "targetType", ip, user_agent AS "userAgent",
  city, country, region, lat, lng, result, trace_id AS "traceId", metadata, origin,
  ingested_by AS "ingestedBy", received_at AS "receivedAt", digests, salts`;

/**
 * ENTRY_COLUMNS and the entry's chain row (`FROM ${LOG_FROM}`). `seq` as float8: a
 * JavaScript number from both drivers (exact far beyond any log's length), where bigint
 * would be a string or a BigInt.
 */
export const LOG_COLUMNS = Prisma.sql`${ENTRY_COLUMNS},
  log_chain.seq::float8 AS seq, log_chain.hash, log_chain.prev_hash AS "prevHash",
  log_chain.canonical_version AS "canonicalVersion"`;

/** ENTRY_COLUMNS of an entry not sealed yet. */
export const UNSEALED_COLUMNS = Prisma.sql`${ENTRY_COLUMNS},
  NULL::float8 AS seq, NULL::text AS hash, NULL::text AS "prevHash",
  NULL::int AS "canonicalVersion"`;
/**
 * The service's record of a retention run: never removed itself. Only `origin: service`
 * entries are such records; an ingested entry with this event is an ordinary entry.
 */
export const RETENTION_EVENT = 'logs.retention.applied';

export const LOG_FROM = Prisma.sql`log_entries LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id`;

/**
 * A batch's `receivedAt`, and `timestamp` when not sent, is one Date: formatted once, not
 * once per row (`toISOString` was the costliest step of building the arrays).
 */
let lastInstant: { date: Date; text: string } | undefined;
function instant(value: Date | string): string {
  if (typeof value === 'string') return value;
  if (lastInstant?.date !== value) lastInstant = { date: value, text: value.toISOString() };
  return lastInstant.text;
}
const orNull = <T>(value: T | null | undefined, text: (value: T) => string) =>
  value === null || value === undefined ? null : text(value);

/** The columns an insert writes: name, SQL type, and the row's value as array-literal text. */
const INSERTED: [name: string, type: string, value: (row: NewLogRow) => string | null][] = [
  ['id', 'text', (r) => r.id],
  ['timestamp', 'timestamptz', (r) => instant(r.timestamp)],
  ['event', 'text', (r) => r.event],
  ['actor_id', 'text', (r) => r.actorId ?? null],
  ['actor_email', 'text', (r) => r.actorEmail ?? null],
  ['actor_type', 'text', (r) => r.actorType],
  ['target_id', 'text', (r) => r.targetId ?? null],
  ['target_type', 'text', (r) => r.targetType ?? null],
  ['ip', 'text', (r) => r.ip ?? null],
  ['user_agent', 'text', (r) => r.userAgent ?? null],
  ['city', 'text', (r) => r.city ?? null],
  ['country', 'text', (r) => r.country ?? null],
  ['region', 'text', (r) => r.region ?? null],
  ['lat', 'float8', (r) => orNull(r.lat, String)],
  ['lng', 'float8', (r) => orNull(r.lng, String)],
  ['result', 'text', (r) => r.result],
  ['trace_id', 'text', (r) => r.traceId ?? null],
  ['origin', 'text', (r) => r.origin],
  ['ingested_by', 'text', (r) => r.ingestedBy ?? null],
  ['received_at', 'timestamptz', (r) => orNull(r.receivedAt, instant)],
];
/**
 * INSERTED, then metadata, digests and salts (jsonb); the seal queue gets the ids in the
 * same statement: an acknowledged entry is always either queued or sealed (docs/audit-log.md).
 * The digests and salts of a batch travel as one JSON array each: one `JSON.stringify`
 * instead of one per entry plus the array literal's escaping of every quote.
 */
const INSERT_SQL = (() => {
  const n = INSERTED.length;
  return `WITH inserted AS (
    INSERT INTO log_entries (${INSERTED.map(([name]) => name).join(', ')}, metadata, digests, salts)
    SELECT * FROM unnest(${INSERTED.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')},
      $${n + 1}::jsonb[], ARRAY(SELECT jsonb_array_elements($${n + 2}::jsonb)),
      ARRAY(SELECT jsonb_array_elements($${n + 3}::jsonb))))
  INSERT INTO log_seal_queue (entry_id) SELECT unnest($1::text[])`;
})();

/** The search total is exact up to this many hits; beyond it, counting stops. */
export const TOTAL_HITS_BOUND = 10_000;

/** The most hits one search statement reads (a search of a larger page takes several). */
export const SEARCH_CHUNK_ROWS = 100;

/** How many of the newest entries a search looks through before it asks the inverted index. */
export const RECENT_WINDOW = 2_000;

export type { LogOrigin };

export interface LogFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  events?: string[] | undefined;
  actorId?: string | undefined;
  result?: string | undefined;
  origin?: LogOrigin | undefined;
}

/** The SQL condition of a list or export filter. */
export function filterSql(filter: LogFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.from) parts.push(Prisma.sql`timestamp >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`timestamp < ${filter.to}`);
  if (filter.events) parts.push(Prisma.sql`event = ANY(${filter.events}::text[])`);
  if (filter.actorId !== undefined) parts.push(Prisma.sql`actor_id = ${filter.actorId}`);
  if (filter.result !== undefined) parts.push(Prisma.sql`result = ${filter.result}`);
  if (filter.origin !== undefined) parts.push(Prisma.sql`origin = ${filter.origin}`);
  return Prisma.join(parts, ' AND ');
}

/** Strictly after a keyset position in newest-first order (nothing without one). */
function keysetAfter(after: { at: Date; id: string } | undefined): Prisma.Sql {
  return after ? Prisma.sql`AND (timestamp, id) < (${after.at}, ${after.id})` : Prisma.empty;
}

export class LogsRepository {
  constructor(private readonly c: Connection) {}

  /**
   * One INSERT … SELECT FROM unnest(arrays) per batch: one statement whatever the batch size,
   * each column one array literal (see `arrayLiteral`), straight through the driver (inside a
   * transaction too, on its connection). Prisma's `$executeRaw` converted every element of
   * every array and cost as much server CPU as the rest of the request. The digests and salts
   * are computed here from the row as the database will store it; the sealer computes the
   * canonical form later.
   */
  async insert(rows: NewLogRow[]): Promise<void> {
    const metadata = rows.map((r) => JSON.stringify(r.metadata ?? {}));
    const committed = rows.map((r, i) =>
      commit({
        actorEmail: r.actorEmail,
        targetId: r.targetId,
        metadata: JSON.parse(metadata[i] as string),
      }),
    );
    await this.c.sql(INSERT_SQL, [
      ...INSERTED.map(([, , value]) => arrayLiteral(rows.map(value))),
      arrayLiteral(metadata),
      JSON.stringify(committed.map((c) => c.digests)),
      JSON.stringify(committed.map((c) => c.salts)),
    ]);
  }

  async find(id: string): Promise<LogRow | null> {
    const sql = Prisma.sql`SELECT ${LOG_COLUMNS} FROM ${LOG_FROM} WHERE id = ${id}`;
    const rows = await this.c.sql<LogRow>(sql.text, sql.values);
    return rows[0] ?? null;
  }

  findMany(ids: string[]): Promise<LogRow[]> {
    const sql = Prisma.sql`SELECT ${LOG_COLUMNS} FROM ${LOG_FROM} WHERE id = ANY(${ids}::text[])`;
    return this.c.sql<LogRow>(sql.text, sql.values);
  }

  /** Entries of a list or export filter, newest first, strictly after `after`. */
  list(
    filter: LogFilter,
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<LogRow[]> {
    return this.newest(filterSql(filter), after, take);
  }

  countMatching(filter: LogFilter): Promise<number> {
    return this.count(filterSql(filter));
  }

  /**
   * Hits of a parsed search query within a time range, newest first, fetched in statements of
   * at most SEARCH_CHUNK_ROWS: the embedded database holds the event loop while a statement
   * runs, and a page of the largest entries would hold it for long.
   */
  async search(
    query: SearchQuery,
    range: { from?: Date; to?: Date },
    origin: LogOrigin | undefined,
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<LogRow[]> {
    const rows: LogRow[] = [];
    let position = after;
    while (rows.length < take) {
      const wanted = Math.min(SEARCH_CHUNK_ROWS, take - rows.length);
      const chunk = await this.searchChunk(query, range, origin, position, wanted);
      rows.push(...chunk);
      const last = chunk[chunk.length - 1];
      if (chunk.length < wanted || !last) break;
      position = { at: last.timestamp, id: last.id };
    }
    return rows;
  }

  /**
   * When the newest RECENT_WINDOW entries (after the cursor) hold `take` hits, they are the
   * hits: a cost that does not grow with the log, whatever the planner makes of the query (it
   * takes the words of a phrase as independent, so a common phrase looks rare to it).
   * Otherwise hits are rare among the newest entries, and the planner's plan over the whole
   * log answers: for a rare query, the inverted index and a sort of its few hits.
   */
  private async searchChunk(
    query: SearchQuery,
    range: { from?: Date; to?: Date },
    origin: LogOrigin | undefined,
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<LogRow[]> {
    const match = searchMatch(query);
    const scope = searchScope(range, origin);
    const recent = Prisma.sql`
      SELECT ${LOG_COLUMNS} FROM (
        SELECT * FROM log_entries WHERE ${scope} ${keysetAfter(after)}
        ORDER BY timestamp DESC, id DESC
        LIMIT ${RECENT_WINDOW}) AS log_entries
        LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id
      WHERE ${match}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}`;
    const rows = await this.c.sql<LogRow>(recent.text, recent.values);
    if (rows.length === take) return rows;
    return this.newest(Prisma.sql`${match} AND ${scope}`, after, take);
  }

  /**
   * How many entries match a search: exactly, or when `exact` is false, exactly up to
   * TOTAL_HITS_BOUND and otherwise TOTAL_HITS_BOUND + 1 (the inner LIMIT stops the scan).
   */
  countSearch(
    query: SearchQuery,
    range: { from?: Date; to?: Date },
    origin: LogOrigin | undefined,
    exact: boolean,
  ): Promise<number> {
    const where = Prisma.sql`${searchMatch(query)} AND ${searchScope(range, origin)}`;
    if (exact) return this.count(where);
    const sql = Prisma.sql`
      SELECT count(*)::int AS n
      FROM (SELECT 1 FROM log_entries WHERE ${where} LIMIT ${TOTAL_HITS_BOUND + 1}) AS bounded`;
    return this.firstCount(sql);
  }

  /**
   * Entries matching `where`, newest first by (timestamp, id), strictly after `after`. The
   * row comparison lets PostgreSQL start the index scan at the cursor, so a deep page costs
   * what the first one does. Plain SQL: lists, searches and exports read many rows, and
   * Prisma's per-value conversion of raw results costs more than the query.
   */
  private newest(
    where: Prisma.Sql,
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<LogRow[]> {
    const sql = Prisma.sql`
      SELECT ${LOG_COLUMNS} FROM ${LOG_FROM}
      WHERE ${where} ${keysetAfter(after)}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}`;
    return this.c.sql<LogRow>(sql.text, sql.values);
  }

  private count(where: Prisma.Sql): Promise<number> {
    return this.firstCount(Prisma.sql`SELECT count(*)::int AS n FROM log_entries WHERE ${where}`);
  }

  private async firstCount(sql: Prisma.Sql): Promise<number> {
    const rows = await this.c.sql<{ n: number }>(sql.text, sql.values);
    return rows[0]?.n ?? 0;
  }

  /**
   * Removes up to `limit` sealed entries dated before `cutoff`, except the service's own
   * `logs.retention.applied` entries (the proof of earlier removals); returns how many it
   * removed. Their chain rows stay, marked removed in the same statement (verify takes their
   * stored hashes, so the chain still verifies across them). Entries not sealed yet stay
   * until a later run: marked chain rows are then exactly the removed entries. The outer
   * `timestamp` condition keeps the DELETE to the partitions of old months.
   */
  async removeOlderThan(cutoff: Date, limit: number): Promise<number> {
    const [result] = await this.c.db.$queryRaw<{ n: number }[]>`
      WITH removed AS (
        DELETE FROM log_entries
        WHERE timestamp < ${cutoff} AND id IN (
          SELECT e.id FROM log_entries e JOIN log_chain c ON c.entry_id = e.id
          WHERE e.timestamp < ${cutoff}
            AND NOT (e.event = ${RETENTION_EVENT} AND e.origin = 'service')
          LIMIT ${limit})
        RETURNING id),
      marked AS (
        UPDATE log_chain SET removed_at = now() WHERE entry_id IN (SELECT id FROM removed))
      SELECT count(*)::int AS n FROM removed`;
    return result?.n ?? 0;
  }

  /**
   * The audit trail outlives the account, but not its email address. Only the entries
   * linked to the user are touched: those it acted in (`actor.id`; the actor's email is
   * removed, shown as `null`) and those about it (`target` = the user). In them a target
   * id that is the email is removed, and each top-level metadata value that mentions it
   * becomes "[redacted]". Each removed value loses its salt and keeps its digest, so the
   * hash chain still verifies and the value cannot be confirmed by guessing. Entries not
   * linked to the user are never altered, whatever they mention. The generated `search`
   * column follows. Returns how many entries were altered.
   */
  redactUser(userId: string, email: string): Promise<number> {
    const lower = email.toLowerCase();
    const ownEmail = Prisma.sql`(actor_id = ${userId} AND actor_email IS NOT NULL)`;
    const emailAsTarget = Prisma.sql`lower(target_id) = ${lower}`;
    const mentions = Prisma.sql`strpos(lower(value::text), ${lower}) > 0`;
    const emailInMetadata = Prisma.sql`strpos(lower(metadata::text), ${lower}) > 0`;
    return this.c.db.$executeRaw`
      UPDATE log_entries
      SET actor_email = CASE WHEN ${ownEmail} THEN NULL ELSE actor_email END,
          actor_email_redacted = actor_email_redacted OR ${ownEmail},
          target_id = CASE WHEN ${emailAsTarget} THEN NULL ELSE target_id END,
          metadata = CASE WHEN ${emailInMetadata}
            THEN (SELECT jsonb_object_agg(key,
                    CASE WHEN ${mentions} THEN to_jsonb(${REDACTED}::text) ELSE value END)
                  FROM jsonb_each(metadata))
            ELSE metadata END,
          salts = coalesce(salts, '{}'::jsonb) - ARRAY(
            SELECT 'actor.email' WHERE ${ownEmail}
            UNION ALL SELECT 'target.id' WHERE ${emailAsTarget}
            UNION ALL SELECT 'metadata.' || key FROM jsonb_each(metadata) WHERE ${mentions})
      WHERE (actor_id = ${userId} OR (target_type = 'user' AND target_id = ${userId}))
        AND (${ownEmail} OR ${emailAsTarget} OR ${emailInMetadata})`;
  }
}
