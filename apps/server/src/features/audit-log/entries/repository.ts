import { Prisma } from '@secadmin/db';
import { mapInSlices } from '../../../lib/slices.js';
import { arrayLiteral } from '../../../storage/array-literal.js';
import type { Connection } from '../../../storage/connection.js';
import { commit } from '../chain/commitments.js';
import {
  countWhere,
  filterSql,
  LOG_COLUMNS,
  LOG_FROM,
  type LogFilter,
  type LogPosition,
  type LogRow,
  type NewLogRow,
  newestSql,
} from './sql.js';

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
 * INSERTED, then metadata, digests and salts (jsonb); the seal queue gets the ids and
 * timestamps in the same statement: an acknowledged entry is always either queued or sealed (docs/audit-log.md).
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
  INSERT INTO log_seal_queue (entry_id, entry_timestamp)
  SELECT unnest($1::text[]), unnest($2::timestamptz[])`;
})();

/** An insert of entries as the driver takes it (see `EntriesRepository.prepare`). */
export interface PreparedInsert {
  readonly params: (string | null)[];
}

/** Writes entries with their field commitments, and reads them by id or by filter. */
export class EntriesRepository {
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
    await this.write(await this.prepare(rows));
  }

  /**
   * The parameters of `insert`'s statement: all of its work on this side of the driver, a
   * row's metadata text and commitments at a time, in slices that let other requests through.
   */
  async prepare(rows: NewLogRow[]): Promise<PreparedInsert> {
    const stored = await mapInSlices(rows, (r) => {
      const metadata = JSON.stringify(r.metadata ?? {});
      const committed = commit({
        actorEmail: r.actorEmail,
        targetId: r.targetId,
        metadata: JSON.parse(metadata),
      });
      return { metadata, committed };
    });
    return {
      params: [
        ...INSERTED.map(([, , value]) => arrayLiteral(rows.map(value))),
        arrayLiteral(stored.map((s) => s.metadata)),
        JSON.stringify(stored.map((s) => s.committed.digests)),
        JSON.stringify(stored.map((s) => s.committed.salts)),
      ],
    };
  }

  async write(prepared: PreparedInsert): Promise<void> {
    await this.c.sql(INSERT_SQL, prepared.params);
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
  list(filter: LogFilter, after: LogPosition | undefined, take: number): Promise<LogRow[]> {
    const sql = newestSql(filterSql(filter), after, take);
    return this.c.sql<LogRow>(sql.text, sql.values);
  }

  count(filter: LogFilter): Promise<number> {
    return countWhere(this.c, filterSql(filter));
  }
}
