import { type LogEntry, Prisma, type SqlQuery } from '@secadmin/db';
import type { Db } from './db.js';
import { LOG_COLUMNS } from './log-columns.js';

export type LogRow = LogEntry;
export type NewLogRow = Prisma.LogEntryCreateManyInput;

/**
 * One INSERT … SELECT FROM unnest(arrays) per batch: one statement and 18 parameters
 * whatever the batch size, instead of a statement with 18 parameters per row.
 */
export async function insertLogEntries(db: Db, rows: NewLogRow[]): Promise<void> {
  const column = <T>(pick: (row: NewLogRow) => T) => rows.map(pick);
  await db.$executeRaw`
    INSERT INTO log_entries (id, timestamp, event, actor_id, actor_email, actor_type, target_id, target_type,
      ip, user_agent, city, country, region, lat, lng, result, trace_id, metadata)
    SELECT * FROM unnest(
      ${column((r) => r.id)}::text[], ${column((r) => r.timestamp)}::timestamptz[], ${column((r) => r.event)}::text[],
      ${column((r) => r.actorId ?? null)}::text[], ${column((r) => r.actorEmail ?? null)}::text[],
      ${column((r) => r.actorType)}::text[], ${column((r) => r.targetId ?? null)}::text[],
      ${column((r) => r.targetType ?? null)}::text[], ${column((r) => r.ip ?? null)}::text[],
      ${column((r) => r.userAgent ?? null)}::text[], ${column((r) => r.city ?? null)}::text[],
      ${column((r) => r.country ?? null)}::text[], ${column((r) => r.region ?? null)}::text[],
      ${column((r) => r.lat ?? null)}::float8[], ${column((r) => r.lng ?? null)}::float8[],
      ${column((r) => r.result)}::text[], ${column((r) => r.traceId ?? null)}::text[],
      ${column((r) => JSON.stringify(r.metadata ?? {}))}::jsonb[])`;
}

export function findLogEntry(db: Db, id: string): Promise<LogRow | null> {
  return db.logEntry.findUnique({ where: { id } });
}

export interface LogFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  events?: string[] | undefined;
  actorId?: string | undefined;
  result?: string | undefined;
}

function filterSql(filter: LogFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.from) parts.push(Prisma.sql`timestamp >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`timestamp < ${filter.to}`);
  if (filter.events) parts.push(Prisma.sql`event = ANY(${filter.events}::text[])`);
  if (filter.actorId !== undefined) parts.push(Prisma.sql`actor_id = ${filter.actorId}`);
  if (filter.result !== undefined) parts.push(Prisma.sql`result = ${filter.result}`);
  return Prisma.join(parts, ' AND ');
}

/**
 * Newest first by (timestamp, id), strictly after the cursor position. The row
 * comparison lets PostgreSQL start the index scan at the cursor, so a deep page costs
 * what the first one does.
 */
export function listLogEntries(
  query: SqlQuery,
  filter: LogFilter,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<LogRow[]> {
  return newestLogEntries(query, filterSql(filter), after, take);
}

/**
 * Entries matching `where`, newest first by (timestamp, id), strictly after `after`.
 * Straight to the driver: lists, searches and exports read many rows, and Prisma's
 * per-value conversion of raw results costs more than the query.
 */
export function newestLogEntries(
  query: SqlQuery,
  where: Prisma.Sql,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<LogRow[]> {
  const keyset = after
    ? Prisma.sql`AND (timestamp, id) < (${after.at}, ${after.id})`
    : Prisma.empty;
  const sql = Prisma.sql`
    SELECT ${LOG_COLUMNS} FROM log_entries
    WHERE ${where} ${keyset}
    ORDER BY timestamp DESC, id DESC
    LIMIT ${take}`;
  return query<LogRow>(sql.text, sql.values);
}

/**
 * The audit trail outlives the account, but not its email address: removed from the
 * actor (shown as `null`), from targets, and from metadata values. The full-text index
 * finds the candidate entries, so this does not scan the whole log.
 */
export async function redactEmail(db: Db, userId: string, email: string): Promise<void> {
  const lower = email.toLowerCase();
  await db.$executeRaw`
    UPDATE log_entries SET actor_email = NULL, actor_email_redacted = true
    WHERE actor_id = ${userId} OR lower(actor_email) = ${lower}`;
  const pattern = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await db.$executeRaw`
    UPDATE log_entries
    SET target_id = CASE WHEN lower(target_id) = ${lower} THEN NULL ELSE target_id END,
        metadata = regexp_replace(metadata::text, ${pattern}, '[redacted]', 'gi')::jsonb
    WHERE search @@ phraseto_tsquery('simple', regexp_replace(${email}, '[^[:alnum:]]+', ' ', 'g'))
      AND (lower(target_id) = ${lower} OR strpos(lower(metadata::text), ${lower}) > 0)`;
}

export async function countLogEntries(db: Db, filter: LogFilter): Promise<number> {
  const rows = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM log_entries WHERE ${filterSql(filter)}`;
  return rows[0]?.n ?? 0;
}
