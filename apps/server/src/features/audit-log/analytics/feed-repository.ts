import type { Connection } from '../../../storage/connection.js';
import type { SealedRow } from './index-rows.js';

/** How much of an entry's metadata (its JSON text, as the database writes it) is searchable. */
export const SEARCHABLE_METADATA_CHARS = 4096;

const SEALED_COLUMNS = `
  log_chain.seq::float8 AS seq, e.id, e.timestamp, e.event, e.result, e.origin,
  e.actor_id AS "actorId", e.actor_type AS "actorType", e.actor_email AS "actorEmail",
  e.target_id AS "targetId", e.target_type AS "targetType", e.ip, e.user_agent AS "userAgent",
  e.city, e.country, e.region, left(e.metadata::text, ${SEARCHABLE_METADATA_CHARS}) AS "metadataText"`;

/** A change the store must take over from PostgreSQL: entries redacted, or removed. */
export interface IndexChange {
  id: number;
  kind: 'resync' | 'remove';
  /**
   * `resync`: the entries that changed, by id (an entry sealed after the change was queued
   * is found by its id too).
   */
  entryIds: string[];
  /**
   * `remove`: a month dropped whole: its entries in `[fromTime, toTime)` up to `throughSeq`
   * are gone, but the retention records.
   */
  fromTime: Date | null;
  toTime: Date | null;
  throughSeq: number | null;
}

/** The state of the search store, as every instance reads it. */
export interface IndexState {
  indexedThroughSeq: number;
  indexedAt: Date | null;
  rebuildRequestedAt: Date | null;
  rebuildStartedAt: Date | null;
  rebuildThroughSeq: number | null;
  rebuildTargetSeq: number | null;
  /** The live table itself is being filled again (its data was lost): it cannot answer yet. */
  rebuildLive: boolean;
  /** Changes (redactions, removals) are queued that the store does not hold yet. */
  changesPending: boolean;
}

/** What the search store reads of PostgreSQL, and the state it keeps there. */
export class FeedRepository {
  constructor(private readonly c: Connection) {}

  /** The highest sealed seq (0 for an empty chain). */
  async sealedHead(): Promise<number> {
    const [row] = await this.c.sql<{ seq: number | null }>(
      'SELECT max(seq)::float8 AS seq FROM log_chain',
    );
    return row?.seq ?? 0;
  }

  /**
   * The kept entries with `from <= seq <= to`, by seq. The chain's range is read on its primary
   * key and each row looks up its entry (LATERAL, kept from being merged by its LIMIT), as the
   * log streams read it.
   */
  between(from: number, to: number): Promise<SealedRow[]> {
    return this.c.sql<SealedRow>(
      `SELECT ${SEALED_COLUMNS}
       FROM (SELECT seq, entry_id FROM log_chain WHERE seq BETWEEN $1 AND $2 ORDER BY seq) AS log_chain
       CROSS JOIN LATERAL (SELECT * FROM log_entries WHERE id = log_chain.entry_id LIMIT 1) AS e
       ORDER BY log_chain.seq`,
      [from, to],
    );
  }

  /**
   * The sealed entries among these ids, by seq: each as it is now, or only its seq when
   * retention removed it.
   */
  async byEntryIds(ids: readonly string[]): Promise<{ seq: number; row: SealedRow | undefined }[]> {
    const rows = await this.c.sql<SealedRow & { kept: boolean }>(
      `SELECT ${SEALED_COLUMNS}, e.id IS NOT NULL AS kept
       FROM (SELECT seq, entry_id FROM log_chain WHERE entry_id = ANY($1::text[]) ORDER BY seq) AS log_chain
       LEFT JOIN LATERAL (SELECT * FROM log_entries WHERE id = log_chain.entry_id LIMIT 1) AS e ON TRUE
       ORDER BY log_chain.seq`,
      [ids],
    );
    return rows.map(({ kept, ...row }) => ({ seq: row.seq, row: kept ? row : undefined }));
  }

  /** Sealed entries of `[from, to)` with seq up to `throughSeq`, per UTC hour (ms since the epoch). */
  async hourlyCounts(from: Date, to: Date, throughSeq: number): Promise<Map<number, number>> {
    const rows = await this.c.sql<{ hour: Date; n: number }>(
      `SELECT date_bin('1 hour', e.timestamp, TIMESTAMPTZ '1970-01-01Z') AS hour, count(*)::float8 AS n
       FROM log_entries e JOIN log_chain c ON c.entry_id = e.id
       WHERE e.timestamp >= $1 AND e.timestamp < $2 AND c.seq <= $3
       GROUP BY 1`,
      [from, to, throughSeq],
    );
    return new Map(rows.map((row) => [new Date(row.hour).getTime(), row.n]));
  }

  /** Queues a change for the store (in the caller's transaction, with what it changed). */
  async queue(
    change:
      | { kind: 'resync'; entryIds: readonly string[] }
      | { kind: 'remove'; fromTime: Date; toTime: Date; throughSeq: number },
  ): Promise<void> {
    if (change.kind === 'resync') {
      if (change.entryIds.length === 0) return;
      await this.c.sql(
        `INSERT INTO search_index_changes (kind, entry_ids) VALUES ('resync', $1::text[])`,
        [change.entryIds],
      );
    } else {
      await this.c.sql(
        `INSERT INTO search_index_changes (kind, entry_ids, from_time, to_time, through_seq)
         VALUES ('remove', '{}', $1, $2, $3)`,
        [change.fromTime, change.toTime, change.throughSeq],
      );
    }
  }

  /** The oldest queued changes. */
  changes(take: number): Promise<IndexChange[]> {
    return this.c.sql<IndexChange>(
      `SELECT id::float8 AS id, kind, entry_ids AS "entryIds", from_time AS "fromTime",
              to_time AS "toTime", through_seq::float8 AS "throughSeq"
       FROM search_index_changes ORDER BY id LIMIT $1`,
      [take],
    );
  }

  async changeDone(id: number): Promise<void> {
    await this.c.sql('DELETE FROM search_index_changes WHERE id = $1', [id]);
  }

  /** The newest queued change's id (0: none queued). */
  async lastChange(): Promise<number> {
    const [row] = await this.c.sql<{ id: number | null }>(
      'SELECT max(id)::float8 AS id FROM search_index_changes',
    );
    return row?.id ?? 0;
  }

  /** Whether every change up to `id` was applied. */
  async appliedThrough(id: number): Promise<boolean> {
    const [row] = await this.c.sql<{ pending: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM search_index_changes WHERE id <= $1) AS pending',
      [id],
    );
    return row?.pending === false;
  }

  async state(): Promise<IndexState> {
    const [row] = await this.c.sql<IndexState>(
      `SELECT indexed_through_seq::float8 AS "indexedThroughSeq", indexed_at AS "indexedAt",
              rebuild_requested_at AS "rebuildRequestedAt", rebuild_started_at AS "rebuildStartedAt",
              rebuild_through_seq::float8 AS "rebuildThroughSeq",
              rebuild_target_seq::float8 AS "rebuildTargetSeq", rebuild_live AS "rebuildLive",
              EXISTS (SELECT 1 FROM search_index_changes) AS "changesPending"
       FROM search_index_state WHERE id = 1`,
    );
    if (!row) throw new Error('search_index_state has no row: the migrations did not run');
    return row;
  }

  async indexed(throughSeq: number, at: Date): Promise<void> {
    await this.c.sql(
      'UPDATE search_index_state SET indexed_through_seq = $1, indexed_at = $2 WHERE id = 1',
      [throughSeq, at],
    );
  }

  /**
   * Takes or renews the feeder's lease for `seconds`: true when this instance holds it (one
   * instance feeds the store at a time; another takes over once a lease runs out).
   */
  async lease(holder: string, seconds: number): Promise<boolean> {
    const rows = await this.c.sql(
      `UPDATE search_index_state SET feeder = $1, feeder_until = now() + make_interval(secs => $2)
       WHERE id = 1 AND (feeder = $1 OR feeder IS NULL OR feeder_until < now()) RETURNING id`,
      [holder, seconds],
    );
    return rows.length > 0;
  }

  async releaseLease(holder: string): Promise<void> {
    await this.c.sql(
      'UPDATE search_index_state SET feeder = NULL, feeder_until = NULL WHERE id = 1 AND feeder = $1',
      [holder],
    );
  }

  /** Asks for a rebuild (the feeder starts it); a rebuild already asked for or running stays. */
  async requestRebuild(): Promise<void> {
    await this.c.sql(
      `UPDATE search_index_state SET rebuild_requested_at = now()
       WHERE id = 1 AND rebuild_requested_at IS NULL AND rebuild_started_at IS NULL`,
    );
  }

  /** A requested rebuild keeps the instant it was asked for as its start (what callers were shown). */
  async rebuildStarted(targetSeq: number, live: boolean): Promise<void> {
    await this.c.sql(
      `UPDATE search_index_state SET rebuild_requested_at = NULL,
         rebuild_started_at = coalesce(rebuild_requested_at, now()),
         rebuild_through_seq = 0, rebuild_target_seq = $1, rebuild_live = $2 WHERE id = 1`,
      [targetSeq, live],
    );
  }

  async rebuildProgress(throughSeq: number): Promise<void> {
    await this.c.sql('UPDATE search_index_state SET rebuild_through_seq = $1 WHERE id = 1', [
      throughSeq,
    ]);
  }

  async rebuildDone(): Promise<void> {
    await this.c.sql(
      `UPDATE search_index_state SET rebuild_started_at = NULL, rebuild_through_seq = NULL,
         rebuild_target_seq = NULL, rebuild_live = false WHERE id = 1`,
    );
  }
}
