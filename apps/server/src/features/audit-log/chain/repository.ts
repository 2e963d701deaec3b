import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import { LOG_COLUMNS, LOG_FROM, type LogRow } from '../repository.js';

/** Any constant: the instance holding this transaction-level lock is the one sealing. */
const SEALER_LOCK_ID = 7_246_614_222;

export interface ChainHead {
  seq: number;
  hash: string;
}

export interface CheckpointRow {
  seq: number;
  hash: string;
  signature: string;
  createdAt: Date;
}

export interface ChainRow {
  seq: number;
  entryId: string;
  hash: string;
  prevHash: string;
}

/** A chain row and its entry; `entry` is null when the entry row is gone. */
export interface ChainLink {
  seq: number;
  entry: LogRow | null;
}

/** The hash chain's tables: the seal queue, the chain, the checkpoints. Plain SQL throughout. */
export class ChainRepository {
  constructor(private readonly c: Connection) {}

  /** Within a transaction: true when this one may seal (no other instance is sealing). */
  async trySealerLock(): Promise<boolean> {
    const rows = await this.c.sql<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock($1::bigint) AS locked',
      [SEALER_LOCK_ID],
    );
    return rows[0]?.locked === true;
  }

  async head(): Promise<ChainHead | null> {
    const rows = await this.c.sql<ChainHead>(
      'SELECT seq::float8 AS seq, hash FROM log_chain ORDER BY seq DESC LIMIT 1',
    );
    return rows[0] ?? null;
  }

  async hasQueued(): Promise<boolean> {
    return (await this.c.sql('SELECT 1 FROM log_seal_queue LIMIT 1')).length > 0;
  }

  /** The oldest queued entries, each with its queue number, in queue order. */
  queued(limit: number): Promise<{ n: string; entryId: string }[]> {
    return this.c.sql(
      'SELECT n::text AS n, entry_id AS "entryId" FROM log_seal_queue ORDER BY n LIMIT $1',
      [limit],
    );
  }

  entries(ids: string[]): Promise<LogRow[]> {
    const sql = Prisma.sql`
      SELECT ${LOG_COLUMNS} FROM ${LOG_FROM} WHERE id = ANY(${ids}::text[])`;
    return this.c.sql<LogRow>(sql.text, sql.values);
  }

  /** Appends chain rows, removes their queue rows, and stores digests computed late. */
  async append(
    rows: ChainRow[],
    dequeued: string[],
    late: { id: string; digests: object; salts: object }[],
    sealedAt: Date,
  ): Promise<void> {
    if (rows.length > 0)
      await this.c.sql(
        `INSERT INTO log_chain (seq, entry_id, hash, prev_hash, sealed_at)
         SELECT seq, entry_id, hash, prev_hash, $5 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
           AS t(seq, entry_id, hash, prev_hash)`,
        [
          rows.map((r) => r.seq),
          rows.map((r) => r.entryId),
          rows.map((r) => r.hash),
          rows.map((r) => r.prevHash),
          sealedAt,
        ],
      );
    await this.c.sql('DELETE FROM log_seal_queue WHERE n = ANY($1::bigint[])', [dequeued]);
    if (late.length > 0)
      await this.c.sql(
        `UPDATE log_entries SET digests = t.digests, salts = t.salts
         FROM unnest($1::text[], $2::jsonb[], $3::jsonb[]) AS t(id, digests, salts)
         WHERE log_entries.id = t.id`,
        [
          late.map((l) => l.id),
          late.map((l) => JSON.stringify(l.digests)),
          late.map((l) => JSON.stringify(l.salts)),
        ],
      );
  }

  async lastCheckpoint(): Promise<{ seq: number } | null> {
    const rows = await this.c.sql<{ seq: number }>(
      'SELECT seq::float8 AS seq FROM log_checkpoints ORDER BY seq DESC LIMIT 1',
    );
    return rows[0] ?? null;
  }

  /** When the entry at `seq` was sealed (null if there is none). */
  async sealedAt(seq: number): Promise<Date | null> {
    const rows = await this.c.sql<{ sealedAt: Date }>(
      'SELECT sealed_at AS "sealedAt" FROM log_chain WHERE seq = $1',
      [seq],
    );
    return rows[0]?.sealedAt ?? null;
  }

  async addCheckpoints(checkpoints: CheckpointRow[]): Promise<void> {
    if (checkpoints.length === 0) return;
    await this.c.sql(
      `INSERT INTO log_checkpoints (seq, hash, signature, created_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[])`,
      [
        checkpoints.map((c) => c.seq),
        checkpoints.map((c) => c.hash),
        checkpoints.map((c) => c.signature),
        checkpoints.map((c) => c.createdAt),
      ],
    );
  }

  /** Checkpoints newest first, strictly before `beforeSeq`. */
  checkpoints(beforeSeq: number | undefined, take: number): Promise<CheckpointRow[]> {
    return this.c.sql(
      `SELECT seq::float8 AS seq, hash, signature, created_at AS "createdAt" FROM log_checkpoints
       WHERE $1::bigint IS NULL OR seq < $1::bigint ORDER BY seq DESC LIMIT $2`,
      [beforeSeq ?? null, take],
    );
  }

  /** Checkpoints with `from <= seq <= to`, oldest first (a verification holds them all). */
  checkpointsBetween(from: number, to: number): Promise<CheckpointRow[]> {
    return this.c.sql(
      `SELECT seq::float8 AS seq, hash, signature, created_at AS "createdAt" FROM log_checkpoints
       WHERE seq BETWEEN $1 AND $2 ORDER BY seq`,
      [from, to],
    );
  }

  /** Chain rows `from <= seq <= to` with their entries (null when the entry row is gone). */
  async links(from: number, to: number, take: number): Promise<ChainLink[]> {
    const sql = Prisma.sql`
      SELECT log_chain.seq::float8 AS "chainSeq", ${LOG_COLUMNS}
      FROM log_chain LEFT JOIN log_entries ON log_entries.id = log_chain.entry_id
      WHERE log_chain.seq BETWEEN ${from} AND ${to}
      ORDER BY log_chain.seq LIMIT ${take}`;
    const rows = await this.c.sql<LogRow & { chainSeq: number }>(sql.text, sql.values);
    return rows.map(({ chainSeq, ...row }) => ({
      seq: chainSeq,
      entry: row.id === null ? null : row,
    }));
  }
}
