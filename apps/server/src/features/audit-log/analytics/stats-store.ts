import type { components } from '@secadmin/api-types';
import type { AnalyticsStore } from '../../../storage/analytics/analytics-store.js';
import type { SearchQuery } from '../search/query.js';
import { Placeholders, scopeCondition } from './query-sql.js';
import { readStore } from './store-failures.js';
import { LIVE_TABLE, tableName } from './table.js';

export type StatsField = components['schemas']['LogStatsField'];

/** The column behind each field a facet may count. */
const COLUMNS: Readonly<Record<StatsField, string>> = {
  event: 'event',
  result: 'result',
  origin: 'origin',
  'actor.id': 'actor_id',
  'actor.type': 'actor_type',
  'actor.email': 'actor_email',
  'target.id': 'target_id',
  'target.type': 'target_type',
  'context.ip': 'ip',
  'context.location.country': 'country',
};

/** How many values each facet lists. */
export const FACET_SIZE = 10;

export interface StatsScope {
  query: SearchQuery | undefined;
  from: Date;
  to: Date;
}

export interface StatsCounts {
  /** Entries per bucket start (buckets without entries are absent). */
  buckets: { start: Date; count: number }[];
  /** Per field, its FACET_SIZE most frequent values, by count descending, then value by code point. */
  facets: Map<StatsField, { value: string; count: number }[]>;
}

interface Row {
  field: number;
  bucket: string;
  value: string;
  n: string;
}

/** Counts of the entries a search would find, over time and by field, from the analytics store. */
export class StatsStore {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly timeoutMs: number,
  ) {}

  /**
   * One pass over the matching entries answers the buckets and every facet (grouping sets);
   * each facet is cut to its top values in the engine. An empty value is an absent field: it
   * is counted in the buckets and in no facet.
   */
  async count(
    scope: StatsScope,
    bucket: { firstStart: Date; widthMs: number },
    fields: readonly StatsField[],
  ): Promise<StatsCounts> {
    const p = new Placeholders();
    const first = p.add(bucket.firstStart.getTime(), 'Int64');
    const width = p.add(bucket.widthMs, 'Int64');
    const names = fields.map((_, i) => `f${i}`);
    const fieldOf = [
      'grouping(bucket) = 0, -1',
      ...names.map((name, i) => `grouping(${name}) = 0, ${i}`),
    ].join(', ');
    const value =
      names.length > 0
        ? `multiIf(${names.map((name, i) => `field = ${i}, ${name}`).join(', ')}, '')`
        : `''`;
    const sql = `
      SELECT field, toString(bucket) AS bucket, value, toString(n) AS n FROM (
        SELECT field, bucket, value, n,
          row_number() OVER (PARTITION BY field ORDER BY n DESC, value) AS rank
        FROM (
          SELECT multiIf(${fieldOf}, -2) AS field, bucket, ${value} AS value, count() AS n
          FROM (
            SELECT intDiv(toUnixTimestamp64Milli(timestamp) - ${first}, ${width}) AS bucket
              ${fields.map((f, i) => `, toString(${COLUMNS[f]}) AS f${i}`).join('')}
            FROM ${tableName(this.store, LIVE_TABLE)}
            WHERE ${scopeCondition(scope, p)})
          GROUP BY GROUPING SETS ((bucket)${names.map((name) => `, (${name})`).join('')}))
        WHERE field = -1 OR value != '')
      WHERE field = -1 OR rank <= ${FACET_SIZE}
      ORDER BY field, rank
      SETTINGS max_execution_time = ${this.timeoutMs / 1000}`;
    const rows = await readStore(() => this.store.query<Row>(sql, p.params));
    const counts: StatsCounts = { buckets: [], facets: new Map(fields.map((f) => [f, []])) };
    for (const row of rows) {
      const field = Number(row.field);
      if (field === -1) {
        const start = bucket.firstStart.getTime() + Number(row.bucket) * bucket.widthMs;
        counts.buckets.push({ start: new Date(start), count: Number(row.n) });
      } else {
        counts.facets
          .get(fields[field] as StatsField)
          ?.push({ value: row.value, count: Number(row.n) });
      }
    }
    return counts;
  }
}
