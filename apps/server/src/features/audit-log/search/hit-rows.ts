import type { Connection } from '../../../storage/connection.js';
import type { StoreHit } from '../analytics/search-store.js';
import { HIT_COLUMNS, type LogRow } from '../entries/sql.js';

/**
 * The entries the store found, read from PostgreSQL (the record), in the order found: from the
 * read replica, and from the primary those the replica has not replayed yet (the store is fed
 * from the primary, so it may find an entry before the replica holds it).
 */
export class HitRows {
  constructor(
    private readonly lagging: Connection,
    private readonly primary: Connection,
  ) {}

  /** An entry removed since the store found it is left out. */
  async of(hits: readonly StoreHit[]): Promise<LogRow[]> {
    const byId = new Map((await this.read(this.lagging, hits)).map((row) => [row.id, row]));
    const unseen = hits.filter((hit) => !byId.has(hit.id));
    if (unseen.length > 0 && this.primary !== this.lagging)
      for (const row of await this.read(this.primary, unseen)) byId.set(row.id, row);
    return hits.flatMap((hit) => byId.get(hit.id) ?? []);
  }

  /** By id and timestamp (each probe stays in its month's partition). */
  private async read(c: Connection, hits: readonly StoreHit[]): Promise<LogRow[]> {
    if (hits.length === 0) return [];
    return c.sql<LogRow>(
      `SELECT ${HIT_COLUMNS.text}
       FROM unnest($1::text[], $2::timestamptz[]) AS k(entry_id, entry_at)
       JOIN log_entries ON log_entries.id = k.entry_id AND log_entries.timestamp = k.entry_at
       LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id`,
      [hits.map((hit) => hit.id), hits.map((hit) => hit.timestamp)],
    );
  }
}
