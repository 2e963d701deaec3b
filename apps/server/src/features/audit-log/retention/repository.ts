import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';

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
   * removed (their ids). Their chain rows stay, marked removed in the same statement (verify takes their
   * stored hashes, so the chain still verifies across them). Entries not sealed yet stay
   * until a later run: marked chain rows are then exactly the removed entries. The outer
   * `timestamp` condition keeps the DELETE to the partitions of old months. Entries from
   * `heldFrom` on (not yet delivered by a log stream) stay.
   */
  async removeOlderThan(cutoff: Date, limit: number, heldFrom?: number): Promise<string[]> {
    const sql = Prisma.sql`
      WITH removed AS (
        DELETE FROM log_entries
        WHERE timestamp < ${cutoff} AND id IN (
          SELECT e.id FROM log_entries e JOIN log_chain c ON c.entry_id = e.id
          WHERE e.timestamp < ${cutoff}
            AND NOT (e.event = ${RETENTION_EVENT} AND e.origin = 'service')
            AND (${heldFrom ?? null}::bigint IS NULL OR c.seq < ${heldFrom ?? null}::bigint)
          LIMIT ${limit})
        RETURNING id),
      marked AS (
        UPDATE log_chain SET removed_at = now() WHERE entry_id IN (SELECT id FROM removed))
      SELECT id FROM removed`;
    const rows = await this.c.sql<{ id: string }>(sql.text, sql.values);
    return rows.map((row) => row.id);
  }
}
