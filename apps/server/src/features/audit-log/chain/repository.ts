import { Prisma } from '@secadmin/db';
import { arrayLiteral } from '../../../storage/array-literal.js';
import type { Connection } from '../../../storage/connection.js';
import { LOG_COLUMNS, type LogRow, UNSEALED_COLUMNS } from '../entries/sql.js';
import { RETENTION_EVENT } from '../retention/repository.js';
import type { CanonicalColumns } from './canonical-columns.js';
import type { ChainHead, ChainRow, CheckpointRow } from './model.js';

/** Any constant: the instance holding this transaction-level lock is the one sealing. */
const SEALER_LOCK_ID = 7_246_614_222;

export interface ChainState {
  head: ChainHead | null;
  /** The newest checkpoint's seq (0 for none). */
  covered: number;
  /** When the first entry after `covered` was sealed (null if there is none). */
  uncoveredSince: Date | null;
}

export interface SealBatch {
  expectedHeadSeq: number | null;
  rows: ChainRow[];
  /** Queue numbers of the entries sealed (or gone). */
  dequeued: string[];
  /** Digests and salts of entries written before the chain existed. */
  late: { id: string; digests: object; salts: object }[];
  checkpoints: { seq: number; hash: string; signature: string }[];
  sealedAt: Date;
}

export interface QueuedEntry {
  queueNo: string;
  entryId: string;
  writtenAt: Date;
  /** The entry's columns its canonical form holds; null when the entry row is gone. */
  entry: CanonicalColumns | null;
}

/**
 * A chain row and its entry: `entry` is null when the entry row is gone, and `removed`
 * says whether retention removed it (otherwise it is missing).
 */
export interface ChainLink {
  seq: number;
  hash: string;
  prevHash: string;
  removed: boolean;
  entry: LogRow | null;
}

interface StateColumns {
  headSeq: number | null;
  headHash: string | null;
  covered: number;
  uncoveredSince: Date | null;
}

/** A CTE `state`: one row of StateColumns. */
const STATE_SQL = `WITH head AS (SELECT seq, hash FROM log_chain ORDER BY seq DESC LIMIT 1),
  covered AS (SELECT coalesce(max(seq), 0) AS seq FROM log_checkpoints),
  state AS (
    SELECT (SELECT seq::float8 FROM head) AS "headSeq", (SELECT hash FROM head) AS "headHash",
      (SELECT seq::float8 FROM covered) AS covered,
      (SELECT sealed_at FROM log_chain WHERE seq = (SELECT seq + 1 FROM covered))
        AS "uncoveredSince")`;

function chainState(row: StateColumns | undefined): ChainState {
  return {
    head:
      row?.headSeq != null && row.headHash !== null
        ? { seq: row.headSeq, hash: row.headHash }
        : null,
    covered: row?.covered ?? 0,
    uncoveredSince: row?.uncoveredSince ?? null,
  };
}

/**
 * A queued entry (`l`) read from its month's partition alone, through the timestamp queued
 * with it (by id alone PostgreSQL looks into every month's index); a row queued without one
 * (before it was kept) is found by id. LATERAL: one index probe per queued entry, never a scan
 * of the whole log, whatever the planner thinks the tables hold.
 */
const QUEUED_ENTRY_COLUMNS = `e.id, e.timestamp, e.event, e.actor_id, e.actor_type, e.target_type, e.ip,
  e.user_agent, e.city, e.country, e.region, e.lat, e.lng, e.result, e.trace_id, e.origin,
  e.ingested_by, e.received_at, e.digests,
  coalesce(pg_column_size(e.digests), pg_column_size(e.metadata), 0) AS own`;
const QUEUED_ENTRY_SQL = `
  SELECT ${QUEUED_ENTRY_COLUMNS} FROM log_entries e
  WHERE e.id = l.entry_id AND e.timestamp = l.entry_timestamp
  UNION ALL
  SELECT ${QUEUED_ENTRY_COLUMNS} FROM log_entries e
  WHERE l.entry_timestamp IS NULL AND e.id = l.entry_id
  LIMIT 1`;

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

  /** Within a transaction: waits for the sealing instance's batch, then keeps others out. */
  async lockSealer(): Promise<void> {
    await this.c.sql('SELECT true AS locked FROM pg_advisory_xact_lock($1::bigint)', [
      SEALER_LOCK_ID,
    ]);
  }

  async addCheckpoint(checkpoint: { seq: number; hash: string; signature: string }): Promise<void> {
    await this.c.sql(
      `INSERT INTO log_checkpoints (seq, hash, signature, created_at) VALUES ($1, $2, $3, now())`,
      [checkpoint.seq, checkpoint.hash, checkpoint.signature],
    );
  }

  /** The oldest checkpoint at or after `seq`, if any: where a range's entries are proven. */
  async firstCheckpointFrom(seq: number): Promise<number | undefined> {
    const [row] = await this.c.sql<{ seq: number | null }>(
      'SELECT min(seq)::float8 AS seq FROM log_checkpoints WHERE seq >= $1',
      [seq],
    );
    return row?.seq ?? undefined;
  }

  /** The chain's head, and what the newest checkpoint leaves uncovered. */
  async state(): Promise<ChainState> {
    const [row] = await this.c.sql<StateColumns>(`${STATE_SQL} SELECT * FROM state`);
    return chainState(row);
  }

  /**
   * Within the sealer's transaction, one statement: appends the chain rows, dequeues the
   * entries, stores late digests, adds checkpoints, if the chain's head is still `expectedHeadSeq` (read before the lock was taken). False
   * when it moved (nothing was written) or when a queued entry left the queue meanwhile
   * (retention removed it): the caller rolls back and starts again. Each array travels as one array literal: the
   * transaction's statements go through Prisma, which converts every element of an array
   * parameter, as on the ingest path.
   */
  async seal(batch: SealBatch): Promise<boolean> {
    const { rows, late, checkpoints } = batch;
    const [result] = await this.c.sql<{ fresh: boolean }>(
      `WITH fresh AS (
         SELECT (SELECT max(seq) FROM log_chain) IS NOT DISTINCT FROM $1::bigint AS ok),
       chain AS (
         INSERT INTO log_chain (seq, entry_id, hash, prev_hash, sealed_at, canonical_version)
         SELECT t.seq, t.entry_id, t.hash, t.prev_hash, $6, t.canonical_version
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $14::int[])
           AS t(seq, entry_id, hash, prev_hash, canonical_version)
         WHERE (SELECT ok FROM fresh)),
       dequeued AS (
         DELETE FROM log_seal_queue WHERE n = ANY($7::bigint[]) AND (SELECT ok FROM fresh)
         RETURNING 1),
       late AS (
         UPDATE log_entries SET digests = t.digests, salts = t.salts
         FROM unnest($8::text[], $9::jsonb[], $10::jsonb[]) AS t(id, digests, salts)
         WHERE log_entries.id = t.id AND (SELECT ok FROM fresh)),
       signed AS (
         INSERT INTO log_checkpoints (seq, hash, signature, created_at)
         SELECT t.seq, t.hash, t.signature, $6
         FROM unnest($11::bigint[], $12::text[], $13::text[]) AS t(seq, hash, signature)
         WHERE (SELECT ok FROM fresh)
         ON CONFLICT (seq) DO NOTHING)
       SELECT ok AND (SELECT count(*) FROM dequeued) = cardinality($7::bigint[]) AS fresh
       FROM fresh`,
      [
        batch.expectedHeadSeq,
        arrayLiteral(rows.map((r) => String(r.seq))),
        arrayLiteral(rows.map((r) => r.entryId)),
        arrayLiteral(rows.map((r) => r.hash)),
        arrayLiteral(rows.map((r) => r.prevHash)),
        batch.sealedAt,
        arrayLiteral(batch.dequeued),
        arrayLiteral(late.map((l) => l.id)),
        arrayLiteral(late.map((l) => JSON.stringify(l.digests))),
        arrayLiteral(late.map((l) => JSON.stringify(l.salts))),
        arrayLiteral(checkpoints.map((c) => String(c.seq))),
        arrayLiteral(checkpoints.map((c) => c.hash)),
        arrayLiteral(checkpoints.map((c) => c.signature)),
        arrayLiteral(rows.map((r) => String(r.canonicalVersion))),
      ],
    );
    return result?.fresh === true;
  }

  async hasQueued(): Promise<boolean> {
    return (await this.c.sql('SELECT 1 FROM log_seal_queue LIMIT 1')).length > 0;
  }

  /**
   * The chain's state and the oldest queued entries in queue order, with their queue number
   * and the columns of the entry that its canonical form holds (just written, so in the
   * database's cache). One statement, so one snapshot: a batch another sealer commits
   * meanwhile is either in the head and out of the queue, or neither (read one after the
   * other, a flush could find the queue emptied but the head from before, and sign nothing).
   * The entries stop before `maxBytes` of digests (the one column whose size varies, up to a
   * thousand fields per entry), so that a batch's read holds a bounded amount of memory. The
   * first entry comes whatever it weighs. `more`: entries were left queued;
   * `looked`: how many queued entries were looked at (`limit` when at least that many were).
   */
  async pending(
    limit: number,
    maxBytes: number,
  ): Promise<{ state: ChainState; queued: QueuedEntry[]; more: boolean; looked: number }> {
    const rows = await this.c.sql<
      StateColumns & {
        queueNo: string | null;
        entryId: string;
        writtenAt: Date;
        looked: number | null;
      } & {
        [K in keyof CanonicalColumns]: CanonicalColumns[K] | null;
      }
    >(
      `${STATE_SQL},
       looked AS MATERIALIZED (
         SELECT l.n, l.entry_id, l.written_at, e.*
         FROM (SELECT n, entry_id, entry_timestamp, written_at FROM log_seal_queue
               ORDER BY n LIMIT $1) AS l
         LEFT JOIN LATERAL (${QUEUED_ENTRY_SQL}) AS e ON TRUE),
       weighed AS (
         SELECT looked.*, count(*) OVER () AS looked,
           sum(coalesce(own, 0)) OVER (ORDER BY n) AS upto
         FROM looked)
       SELECT state.*, q.n::text AS "queueNo", q.entry_id AS "entryId", q.written_at AS "writtenAt",
         q.looked::float8 AS looked,
         q.id, q.timestamp, q.event, q.actor_id AS "actorId", q.actor_type AS "actorType",
         q.target_type AS "targetType", q.ip, q.user_agent AS "userAgent", q.city, q.country,
         q.region, q.lat, q.lng, q.result, q.trace_id AS "traceId", q.origin,
         q.ingested_by AS "ingestedBy", q.received_at AS "receivedAt", q.digests
       FROM state LEFT JOIN weighed AS q ON q.upto - coalesce(q.own, 0) < $2
       ORDER BY q.n`,
      [limit, maxBytes],
    );
    const queued: QueuedEntry[] = [];
    for (const {
      headSeq,
      headHash,
      covered,
      uncoveredSince,
      queueNo,
      entryId,
      writtenAt,
      looked,
      ...entry
    } of rows)
      if (queueNo !== null)
        queued.push({
          queueNo,
          entryId,
          writtenAt,
          entry: entry.id === null ? null : (entry as CanonicalColumns),
        });
    const looked = rows[0]?.looked ?? 0;
    return {
      state: chainState(rows[0]),
      queued,
      more: looked === limit || looked > queued.length,
      looked,
    };
  }

  /** Entries not sealed yet, read whole (those written before the chain have no digests). */
  unsealed(ids: string[]): Promise<LogRow[]> {
    const sql = Prisma.sql`
      SELECT ${UNSEALED_COLUMNS} FROM log_entries WHERE id = ANY(${ids}::text[])`;
    return this.c.sql<LogRow>(sql.text, sql.values);
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

  /**
   * In one snapshot: how many chain rows are marked removed, and how many removed entries
   * the `logs.retention.applied` service entries account for — those sealed, and those
   * waiting in the seal queue (a retention batch commits its record with its marks; the
   * record is sealed within a second).
   */
  async removals(): Promise<{ marked: number; recorded: number }> {
    const [row] = await this.c.sql<{ marked: number; recorded: number }>(
      `SELECT (SELECT count(*) FROM log_chain WHERE removed_at IS NOT NULL)::float8 AS marked,
              (SELECT coalesce(sum(CASE WHEN jsonb_typeof(e.metadata->'removedEntries') = 'number'
                                   THEN (e.metadata->>'removedEntries')::numeric ELSE 0 END), 0)
               FROM log_entries e
               WHERE e.event = $1 AND e.origin = 'service'
                 AND (EXISTS (SELECT 1 FROM log_chain c WHERE c.entry_id = e.id)
                      OR EXISTS (SELECT 1 FROM log_seal_queue q WHERE q.entry_id = e.id))
              )::float8 AS recorded`,
      [RETENTION_EVENT],
    );
    return { marked: row?.marked ?? 0, recorded: row?.recorded ?? 0 };
  }

  /** Chain rows `from <= seq <= to` with their entries (null when the entry row is gone). */
  async links(from: number, to: number, take: number): Promise<ChainLink[]> {
    const sql = Prisma.sql`
      SELECT log_chain.seq::float8 AS "chainSeq", log_chain.hash AS "chainHash",
        log_chain.prev_hash AS "chainPrevHash", log_chain.removed_at IS NOT NULL AS removed,
        ${LOG_COLUMNS}
      FROM log_chain LEFT JOIN log_entries ON log_entries.id = log_chain.entry_id
      WHERE log_chain.seq BETWEEN ${from} AND ${to}
      ORDER BY log_chain.seq LIMIT ${take}`;
    const rows = await this.c.sql<
      LogRow & { chainSeq: number; chainHash: string; chainPrevHash: string; removed: boolean }
    >(sql.text, sql.values);
    return rows.map(({ chainSeq, chainHash, chainPrevHash, removed, ...row }) => ({
      seq: chainSeq,
      hash: chainHash,
      prevHash: chainPrevHash,
      removed,
      entry: row.id === null ? null : row,
    }));
  }
}
