import type { Connection } from '../../../storage/connection.js';
import { RETENTION_EVENT } from '../retention/repository.js';

/** Any constant: instances create partitions one at a time. */
const PARTITIONS_LOCK_ID = 7_246_614_223;
const MONTH_NAME = /^log_entries_p(\d{4})_(\d{2})$/;
/** Every stored column of log_entries (`search` is generated). */
const STORED_COLUMNS = `id, timestamp, event, actor_id, actor_email, actor_email_redacted,
  actor_type, target_id, target_type, ip, user_agent, city, country, region, lat, lng, result,
  trace_id, metadata, origin, ingested_by, received_at, digests, salts`;

/** A month of the log: entries with `from <= timestamp < to` (UTC). */
export interface Month {
  name: string;
  from: Date;
  to: Date;
}

export function monthOf(date: Date): Month {
  const from = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
  const to = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
  const month = String(from.getUTCMonth() + 1).padStart(2, '0');
  return { name: `log_entries_p${from.getUTCFullYear()}_${month}`, from, to };
}

/** The monthly partitions of log_entries (the default partition aside). Plain SQL. */
export class PartitionsRepository {
  constructor(private readonly c: Connection) {}

  /** The months that have a partition, oldest first. */
  async months(): Promise<Month[]> {
    const rows = await this.c.sql<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'log_entries'::regclass`,
    );
    return rows
      .map(({ name }) => MONTH_NAME.exec(name))
      .filter((match) => match !== null)
      .map(([, year, month]) => monthOf(new Date(Date.UTC(Number(year), Number(month) - 1, 1))))
      .sort((a, b) => a.from.getTime() - b.from.getTime());
  }

  /** Within a transaction: waits until no other instance is creating partitions. */
  async lock(): Promise<void> {
    await this.c.sql('SELECT pg_advisory_xact_lock($1::bigint)::text AS locked', [
      PARTITIONS_LOCK_ID,
    ]);
  }

  /**
   * Within a transaction: a lock this transaction waits for longer than `ms` fails its
   * statement (creating a partition waits for every reader and writer of the log, and holds
   * up everyone who comes after it while it waits).
   */
  async waitForLocksAtMost(ms: number): Promise<void> {
    await this.c.sql(`SELECT set_config('lock_timeout', $1, true) AS timeout`, [`${ms}ms`]);
  }

  /** Whether the default partition holds entries of `month` (it then cannot be created). */
  async defaultHolds(month: Month): Promise<boolean> {
    const rows = await this.c.sql(
      'SELECT 1 FROM log_entries_default WHERE timestamp >= $1 AND timestamp < $2 LIMIT 1',
      [month.from, month.to],
    );
    return rows.length > 0;
  }

  async create(month: Month): Promise<void> {
    await this.c.sql(
      `CREATE TABLE IF NOT EXISTS "${month.name}" PARTITION OF log_entries
       FOR VALUES FROM ('${month.from.toISOString()}') TO ('${month.to.toISOString()}')`,
    );
  }

  /**
   * Within a transaction: drops the month's partition when every entry in it is sealed
   * (otherwise returns null and changes nothing). The chain rows of its entries are marked
   * removed first; its `logs.retention.applied` service entries are kept (they move to the default
   * partition). Writes to the log wait while this runs; reads go on until the drop itself.
   * Returns how many entries it removed.
   */
  async dropSealed(month: Month): Promise<number | null> {
    const table = `"${month.name}"`;
    await this.c.sql('LOCK TABLE log_entries IN SHARE ROW EXCLUSIVE MODE');
    const unsealed = await this.c.sql(
      `SELECT 1 FROM ${table} e WHERE NOT EXISTS (SELECT 1 FROM log_chain c WHERE c.entry_id = e.id)
       LIMIT 1`,
    );
    if (unsealed.length > 0) return null;
    const [marked] = await this.c.sql<{ n: number }>(
      `WITH marked AS (
         UPDATE log_chain SET removed_at = now()
         WHERE entry_id IN (SELECT id FROM ${table}
                            WHERE NOT (event = $1 AND origin = 'service')) RETURNING 1)
       SELECT count(*)::int AS n FROM marked`,
      [RETENTION_EVENT],
    );
    await this.c.sql(`ALTER TABLE log_entries DETACH PARTITION ${table}`);
    await this.c.sql(
      `INSERT INTO log_entries (${STORED_COLUMNS})
       SELECT ${STORED_COLUMNS} FROM ${table} WHERE event = $1 AND origin = 'service'`,
      [RETENTION_EVENT],
    );
    await this.c.sql(`DROP TABLE ${table}`);
    return marked?.n ?? 0;
  }
}
