import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import type { CheckpointRow } from '../chain/model.js';
import { LOG_COLUMNS_AS_TEXT } from '../entries/sql.js';
import { type LogRowAsText, logDetailJson } from '../representation.js';

/** Which sealed entries a log stream sends (decisions §13 `filter`). */
export interface SealedEntryFilter {
  /** `*` matches any run of characters. */
  events?: string[] | undefined;
  origin?: string | undefined;
  result?: string | undefined;
}

/** A sealed entry as a stream sends it: `json` is the entry as `GET /v1/logs/{id}` shows it. */
export interface SealedEntry {
  seq: number;
  /** As the entry shows it: ISO 8601 with milliseconds. */
  timestamp: string;
  json: string;
}

type Window = { entries: SealedEntry[]; scannedTo: number };

/** The most seqs one read looks through for matching entries. */
const SCAN_WINDOW = 10_000;

/** `user.*` → `user.%`, with LIKE's own wildcards escaped. */
const likePattern = (pattern: string) =>
  pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/**
 * What a log stream reads of the log: the sealed head, sealed entries in `seq` order as
 * `GET /v1/logs/{id}` shows them, and checkpoints. Reads only, outside any transaction.
 */
export class SealedEntries {
  constructor(private readonly c: Connection) {}

  /** The highest sealed seq (0 for an empty chain). */
  async head(): Promise<number> {
    const [row] = await this.c.sql<{ seq: number | null }>(
      'SELECT max(seq)::float8 AS seq FROM log_chain',
    );
    return row?.seq ?? 0;
  }

  /** The lowest sealed seq whose entry is still kept (undefined: none). */
  async earliest(): Promise<number | undefined> {
    const [row] = await this.c.sql<{ seq: number | null }>(
      `SELECT min(log_chain.seq)::float8 AS seq FROM log_chain
       JOIN log_entries ON log_entries.id = log_chain.entry_id`,
    );
    return row?.seq ?? undefined;
  }

  /**
   * Up to `take` sealed entries (as JSON text) with `from <= seq <= to` that match `filter`, by seq, looked
   * for among at most `SCAN_WINDOW` seqs from `from`; `scannedTo` is the last seq looked at
   * (every matching entry up to it is in `entries` unless `take` were found). The chain's seq
   * range is read first, on its primary key, and each chain row looks up its entry (a
   * LATERAL subquery, kept from being merged into a join by its LIMIT): a plan that starts
   * from the entries (no statistics yet, a filter on `event`) would scan the whole log for
   * every batch, and the rows come in seq order, so the read stops at `take` matches (joined
   * whole and sorted, the window's every entry was read).
   */
  async between(
    from: number,
    to: number,
    filter: SealedEntryFilter,
    take: number,
  ): Promise<Window> {
    // Most streams match most entries: a window of twice the batch is read first, and the
    // wide one only when that did not fill the batch.
    const narrow = await this.window(from, Math.min(to, from + 2 * take - 1), filter, take);
    if (narrow.entries.length === take || narrow.scannedTo >= to) return narrow;
    return this.window(from, Math.min(to, from + SCAN_WINDOW - 1), filter, take);
  }

  private async window(
    from: number,
    last: number,
    filter: SealedEntryFilter,
    take: number,
  ): Promise<Window> {
    const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
    if (filter.events)
      parts.push(Prisma.sql`log_entries.event LIKE ANY(${filter.events.map(likePattern)}::text[])`);
    if (filter.origin) parts.push(Prisma.sql`log_entries.origin = ${filter.origin}`);
    if (filter.result) parts.push(Prisma.sql`log_entries.result = ${filter.result}`);
    const sql = Prisma.sql`SELECT ${LOG_COLUMNS_AS_TEXT}
      FROM (SELECT seq, entry_id, hash, prev_hash, canonical_version FROM log_chain
            WHERE seq BETWEEN ${from} AND ${last} ORDER BY seq) AS log_chain
      CROSS JOIN LATERAL (SELECT * FROM log_entries
                          WHERE log_entries.id = log_chain.entry_id
                            AND ${Prisma.join(parts, ' AND ')} LIMIT 1) AS log_entries
      ORDER BY log_chain.seq LIMIT ${take}`;
    const rows = await this.c.sql<LogRowAsText>(sql.text, sql.values);
    const entries = rows.map((row) => ({
      seq: row.seq as number,
      timestamp: row.timestamp,
      json: logDetailJson(row),
    }));
    return { entries, scannedTo: last };
  }

  /** The newest checkpoint with `seq <= atMost`. */
  async checkpointAtOrBefore(atMost: number): Promise<CheckpointRow | undefined> {
    const [row] = await this.c.sql<CheckpointRow>(
      `SELECT seq::float8 AS seq, hash, signature, created_at AS "createdAt" FROM log_checkpoints
       WHERE seq <= $1 ORDER BY seq DESC LIMIT 1`,
      [atMost],
    );
    return row;
  }
}
