import { type LogEntry, Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import type { LogOrigin } from '../origin.js';

/** A stored entry and its place in the hash chain (all null until it is sealed). */
export type LogRow = Omit<LogEntry, 'search'> & {
  seq: number | null;
  hash: string | null;
  prevHash: string | null;
  canonicalVersion: number | null;
};
export type NewLogRow = Omit<Prisma.LogEntryCreateManyInput, 'digests' | 'salts'>;

/** The log_entries columns but the instants and the jsonb ones, under the names of the Prisma model. */
const PLAIN_COLUMNS = `
  id, event, actor_id AS "actorId", actor_email AS "actorEmail",
  actor_email_redacted AS "actorEmailRedacted", actor_type AS "actorType",
  target_id AS "targetId", target_type AS "targetType", ip, user_agent AS "userAgent",
  city, country, region, lat, lng, result, trace_id AS "traceId", origin,
  ingested_by AS "ingestedBy"`;

const SCALAR_COLUMNS = `${PLAIN_COLUMNS}, timestamp, received_at AS "receivedAt"`;

/** An instant as `isoMillis` writes it (the columns keep milliseconds). */
const isoText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const CHAIN_COLUMNS = Prisma.raw(`
  log_chain.seq::float8 AS seq, log_chain.hash, log_chain.prev_hash AS "prevHash",
  log_chain.canonical_version AS "canonicalVersion"`);

/** The log_entries columns under the names of the Prisma model, for plain SQL. */
const ENTRY_COLUMNS = Prisma.raw(`${SCALAR_COLUMNS}, metadata, digests, salts`);

/**
 * ENTRY_COLUMNS and the entry's chain row (`FROM ${LOG_FROM}`). `seq` as float8: a
 * JavaScript number from both drivers (exact far beyond any log's length), where bigint
 * would be a string or a BigInt.
 */
export const LOG_COLUMNS = Prisma.sql`${ENTRY_COLUMNS}, ${CHAIN_COLUMNS}`;

/**
 * LOG_COLUMNS with the instants and the jsonb columns as text (a `LogRowAsText`): what is
 * written out as JSON is not parsed first.
 */
export const LOG_COLUMNS_AS_TEXT = Prisma.sql`${Prisma.raw(PLAIN_COLUMNS)},
  ${Prisma.raw(isoText('timestamp'))} AS timestamp,
  ${Prisma.raw(isoText('received_at'))} AS "receivedAt",
  metadata::text AS metadata, digests::text AS digests, salts::text AS salts, ${CHAIN_COLUMNS}`;

/**
 * LOG_COLUMNS without the field commitments, which a search hit neither shows nor highlights:
 * an entry's digests and salts weigh up to ten times its metadata, so a page of hits of the
 * widest entries read them for nothing (both are null in these rows).
 */
export const HIT_COLUMNS = Prisma.sql`${Prisma.raw(SCALAR_COLUMNS)}, metadata,
  NULL::jsonb AS digests, NULL::jsonb AS salts, ${CHAIN_COLUMNS}`;

/** ENTRY_COLUMNS of an entry not sealed yet. */
export const UNSEALED_COLUMNS = Prisma.sql`${ENTRY_COLUMNS},
  NULL::float8 AS seq, NULL::text AS hash, NULL::text AS "prevHash",
  NULL::int AS "canonicalVersion"`;

export const LOG_FROM = Prisma.sql`log_entries LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id`;

/** A keyset position in newest-first order: the last entry of the page before. */
export interface LogPosition {
  at: Date;
  id: string;
}

export interface LogFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  events?: string[] | undefined;
  actorId?: string | undefined;
  result?: string | undefined;
  origin?: LogOrigin | undefined;
  /** Only these entries (a batch of a search export's hits). */
  ids?: readonly string[] | undefined;
  /** An entry left out by its event and target: an export's own `logs.export.created`. */
  except?: { event: string; targetId: string } | undefined;
}

/** The SQL condition of a list, search or export filter (always true without one). */
export function filterSql(filter: LogFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.from) parts.push(Prisma.sql`timestamp >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`timestamp < ${filter.to}`);
  if (filter.events) parts.push(Prisma.sql`event = ANY(${filter.events}::text[])`);
  if (filter.actorId !== undefined) parts.push(Prisma.sql`actor_id = ${filter.actorId}`);
  if (filter.result !== undefined) parts.push(Prisma.sql`result = ${filter.result}`);
  if (filter.origin !== undefined) parts.push(Prisma.sql`origin = ${filter.origin}`);
  if (filter.ids) parts.push(Prisma.sql`id = ANY(${filter.ids}::text[])`);
  if (filter.except)
    parts.push(
      Prisma.sql`NOT (event = ${filter.except.event} AND target_id IS NOT DISTINCT FROM ${filter.except.targetId})`,
    );
  return Prisma.join(parts, ' AND ');
}

/** Strictly after a keyset position in newest-first order (nothing without one). */
export function keysetAfter(after: LogPosition | undefined): Prisma.Sql {
  return after ? Prisma.sql`AND (timestamp, id) < (${after.at}, ${after.id})` : Prisma.empty;
}

/**
 * Entries matching `where`, newest first by (timestamp, id), strictly after `after`. The
 * row comparison lets PostgreSQL start the index scan at the cursor, so a deep page costs
 * what the first one does. The page is cut before the chain is joined: PostgreSQL sorts only
 * below a join when parallel workers run the scan, so a join over every match made the serial
 * planner walk the whole log newest first for a rare word (bench/results/findings.md). Plain
 * SQL: lists, searches and exports read many rows, and Prisma's per-value conversion of raw
 * results costs more than the query.
 */
export function newestSql(
  where: Prisma.Sql,
  after: LogPosition | undefined,
  take: number,
  columns: Prisma.Sql = LOG_COLUMNS,
): Prisma.Sql {
  return Prisma.sql`
    SELECT ${columns} FROM (
      SELECT * FROM log_entries
      WHERE ${where} ${keysetAfter(after)}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}) AS log_entries
      LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id
    ORDER BY timestamp DESC, id DESC`;
}

/** How many entries match `where`. */
export function countWhere(c: Pick<Connection, 'sql'>, where: Prisma.Sql): Promise<number> {
  return countOf(c, Prisma.sql`SELECT count(*)::int AS n FROM log_entries WHERE ${where}`);
}

/** The count a statement returns as its first row's column `n`. */
export async function countOf(c: Pick<Connection, 'sql'>, sql: Prisma.Sql): Promise<number> {
  const rows = await c.sql<{ n: number }>(sql.text, sql.values);
  return rows[0]?.n ?? 0;
}
