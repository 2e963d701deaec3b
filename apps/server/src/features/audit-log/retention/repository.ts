import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import { DAY_OF_TIMESTAMP, HOUR_OF_TIMESTAMP } from '../stats/kept-counts.js';

/**
 * The service's record of a retention run: never removed itself. Only `origin: service`
 * entries are such records; an ingested entry with this event is an ordinary entry.
 */
export const RETENTION_EVENT = 'logs.retention.applied';

/** Removes entries past the retention window, row by row (partitions.ts drops whole months). */
export class RetentionRepository {
  constructor(private readonly c: Connection) {}

  /**
   * Removes up to `limit` sealed entries dated before `cutoff`, except the service's own
   * `logs.retention.applied` entries (the proof of earlier removals); returns how many it
   * removed. Their chain rows stay, marked removed in the same statement (verify takes their
   * stored hashes, so the chain still verifies across them). Entries not sealed yet stay
   * until a later run: marked chain rows are then exactly the removed entries. The outer
   * `timestamp` condition keeps the DELETE to the partitions of old months. Entries from
   * `heldFrom` on (not yet delivered by a log stream) stay. The kept counts lose the removed
   * entries in the same statement.
   */
  async removeOlderThan(cutoff: Date, limit: number, heldFrom?: number): Promise<number> {
    const sql = Prisma.sql`
      WITH removed AS (
        DELETE FROM log_entries
        WHERE timestamp < ${cutoff} AND id IN (
          SELECT e.id FROM log_entries e JOIN log_chain c ON c.entry_id = e.id
          WHERE e.timestamp < ${cutoff}
            AND NOT (e.event = ${RETENTION_EVENT} AND e.origin = 'service')
            AND (${heldFrom ?? null}::bigint IS NULL OR c.seq < ${heldFrom ?? null}::bigint)
          LIMIT ${limit})
        RETURNING id, timestamp, event, result, origin, actor_id, actor_type, target_type),
      marked AS (
        UPDATE log_chain SET removed_at = now() WHERE entry_id IN (SELECT id FROM removed)),
      uncounted AS (
        UPDATE log_entry_counts c SET n = c.n - r.n
        FROM (SELECT ${HOUR_OF_TIMESTAMP} AS hour, event, result, origin, actor_type, target_type,
                count(*) AS n
              FROM removed GROUP BY 1, 2, 3, 4, 5, 6) AS r
        WHERE c.hour = r.hour AND c.event = r.event AND c.result = r.result
          AND c.origin = r.origin AND c.actor_type = r.actor_type
          AND c.target_type IS NOT DISTINCT FROM r.target_type),
      actors_uncounted AS (
        UPDATE log_actor_counts c SET n = c.n - r.n
        FROM (SELECT ${DAY_OF_TIMESTAMP} AS day, actor_id, count(*) AS n
              FROM removed WHERE actor_id IS NOT NULL GROUP BY 1, 2) AS r
        WHERE c.day = r.day AND c.actor_id = r.actor_id)
      SELECT count(*)::int AS n FROM removed`;
    const [result] = await this.c.sql<{ n: number }>(sql.text, sql.values);
    return result?.n ?? 0;
  }

  /**
   * Drops the kept-count rows before `cutoff` that removals brought to zero (answers read
   * only rows above zero; without this they would stay for good). A seal that counts one of
   * them again meanwhile either commits first (the row is then above zero and stays) or
   * inserts it anew.
   */
  async dropEmptyCounts(cutoff: Date): Promise<void> {
    await this.c.sql('DELETE FROM log_entry_counts WHERE hour < $1 AND n <= 0', [cutoff]);
    await this.c.sql('DELETE FROM log_actor_counts WHERE day < $1 AND n <= 0', [cutoff]);
  }
}
