import { type LogEntry, Prisma } from '@secadmin/db';
import type { Connection } from '../../storage/connection.js';
import type { SearchQuery } from './search/query.js';
import { searchWhere } from './search/search-sql.js';

export type LogRow = LogEntry;
export type NewLogRow = Prisma.LogEntryCreateManyInput;

/** The log_entries columns under the names of the Prisma model, for plain SQL. */
const LOG_COLUMNS = Prisma.sql`
  id, timestamp, event, actor_id AS "actorId", actor_email AS "actorEmail",
  actor_email_redacted AS "actorEmailRedacted", actor_type AS "actorType",
  target_id AS "targetId", target_type AS "targetType", ip, user_agent AS "userAgent",
  city, country, region, lat, lng, result, trace_id AS "traceId", metadata`;

export interface LogFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  events?: string[] | undefined;
  actorId?: string | undefined;
  result?: string | undefined;
}

/** The SQL condition of a list or export filter. */
function filterSql(filter: LogFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.from) parts.push(Prisma.sql`timestamp >= ${filter.from}`);
  if (filter.to) parts.push(Prisma.sql`timestamp < ${filter.to}`);
  if (filter.events) parts.push(Prisma.sql`event = ANY(${filter.events}::text[])`);
  if (filter.actorId !== undefined) parts.push(Prisma.sql`actor_id = ${filter.actorId}`);
  if (filter.result !== undefined) parts.push(Prisma.sql`result = ${filter.result}`);
  return Prisma.join(parts, ' AND ');
}

export class LogsRepository {
  constructor(private readonly c: Connection) {}

  /**
   * One INSERT … SELECT FROM unnest(arrays) per batch: one statement and 18 parameters
   * whatever the batch size, instead of a statement with 18 parameters per row.
   */
  async insert(rows: NewLogRow[]): Promise<void> {
    const column = <T>(pick: (row: NewLogRow) => T) => rows.map(pick);
    await this.c.db.$executeRaw`
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

  find(id: string): Promise<LogRow | null> {
    return this.c.db.logEntry.findUnique({ where: { id } });
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

  /** Hits of a parsed search query within a time range, newest first. */
  search(
    query: SearchQuery,
    range: { from?: Date; to?: Date },
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<LogRow[]> {
    return this.newest(searchWhere(query, range), after, take);
  }

  countSearch(query: SearchQuery, range: { from?: Date; to?: Date }): Promise<number> {
    return this.count(searchWhere(query, range));
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
    const keyset = after
      ? Prisma.sql`AND (timestamp, id) < (${after.at}, ${after.id})`
      : Prisma.empty;
    const sql = Prisma.sql`
      SELECT ${LOG_COLUMNS} FROM log_entries
      WHERE ${where} ${keyset}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}`;
    return this.c.sql<LogRow>(sql.text, sql.values);
  }

  private async count(where: Prisma.Sql): Promise<number> {
    const sql = Prisma.sql`SELECT count(*)::int AS n FROM log_entries WHERE ${where}`;
    const rows = await this.c.sql<{ n: number }>(sql.text, sql.values);
    return rows[0]?.n ?? 0;
  }

  /**
   * The audit trail outlives the account, but not its email address: removed from the
   * actor (shown as `null`), from targets, and from metadata values. The full-text index
   * finds the candidate entries, so this does not scan the whole log.
   */
  async redactEmail(userId: string, email: string): Promise<void> {
    const lower = email.toLowerCase();
    await this.c.db.$executeRaw`
      UPDATE log_entries SET actor_email = NULL, actor_email_redacted = true
      WHERE actor_id = ${userId} OR lower(actor_email) = ${lower}`;
    const pattern = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await this.c.db.$executeRaw`
      UPDATE log_entries
      SET target_id = CASE WHEN lower(target_id) = ${lower} THEN NULL ELSE target_id END,
          metadata = regexp_replace(metadata::text, ${pattern}, '[redacted]', 'gi')::jsonb
      WHERE search @@ phraseto_tsquery('simple', regexp_replace(${email}, '[^[:alnum:]]+', ' ', 'g'))
        AND (lower(target_id) = ${lower} OR strpos(lower(metadata::text), ${lower}) > 0)`;
  }
}
