import type { AnalyticsStore } from '../../../storage/analytics/analytics-store.js';
import type { LogPosition } from '../entries/sql.js';
import type { SearchQuery } from '../search/query.js';
import { Placeholders, scopeCondition } from './query-sql.js';
import { readStore } from './store-failures.js';
import { LIVE_TABLE, tableName } from './table.js';

/** Where a search looks: its time range and origin. */
export interface SearchScope {
  from?: Date | undefined;
  to?: Date | undefined;
  origin?: string | undefined;
  /** An export's events filter. */
  events?: readonly string[] | undefined;
  /** An export's bound: entries sealed later are not its hits. */
  throughSeq?: number | undefined;
}

/** A hit as the store finds it: the entry is then read from PostgreSQL, the record. */
export interface StoreHit {
  id: string;
  timestamp: Date;
}

/** Search hits and their count, from the analytics store. */
export class SearchStore {
  constructor(
    private readonly store: AnalyticsStore,
    /** The longest a statement may run (the engine stops it: a 503). */
    private readonly timeoutMs: number,
  ) {}

  private get settings(): string {
    return `SETTINGS max_execution_time = ${this.timeoutMs / 1000}`;
  }

  /** Up to `take` hits after `after`, newest first (by timestamp, then id). */
  async hits(
    query: SearchQuery,
    scope: SearchScope,
    after: LogPosition | undefined,
    take: number,
  ): Promise<StoreHit[]> {
    const p = new Placeholders();
    const where = [scopeCondition({ ...scope, query }, p)];
    if (after) {
      const at = p.add(after.at.getTime(), 'Int64');
      where.push(
        `(timestamp < fromUnixTimestamp64Milli(${at}, 'UTC') OR (timestamp = fromUnixTimestamp64Milli(${at}, 'UTC') AND id < ${p.add(after.id, 'String')}))`,
      );
    }
    const rows = await readStore(() =>
      this.store.query<{ id: string; ms: string }>(
        `SELECT id, toUnixTimestamp64Milli(timestamp) AS ms FROM ${tableName(this.store, LIVE_TABLE)}
         WHERE ${where.join(' AND ')}
         ORDER BY timestamp DESC, id DESC LIMIT ${p.add(take, 'UInt32')} ${this.settings}`,
        p.params,
      ),
    );
    return rows.map((row) => ({ id: row.id, timestamp: new Date(Number(row.ms)) }));
  }

  /** How many entries match, exactly. */
  async count(query: SearchQuery, scope: SearchScope): Promise<number> {
    const p = new Placeholders();
    const rows = await readStore(() =>
      this.store.query<{ n: string }>(
        `SELECT count() AS n FROM ${tableName(this.store, LIVE_TABLE)}
         WHERE ${scopeCondition({ ...scope, query }, p)} ${this.settings}`,
        p.params,
      ),
    );
    return Number(rows[0]?.n ?? 0);
  }
}
