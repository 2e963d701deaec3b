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

const HOUR_MS = 3_600_000;

/**
 * The fields the table's `hours` projection counts per hour (table.ts): few values each, so an
 * hour of entries is a few rows there.
 */
const HOURLY: ReadonlySet<StatsField> = new Set<StatsField>([
  'event',
  'result',
  'origin',
  'actor.type',
  'target.type',
  'context.location.country',
]);

/** Counts of the entries a search would find, over time and by field, from the analytics store. */
export class StatsStore {
  constructor(
    private readonly store: AnalyticsStore,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Without a query, over buckets of whole hours, the whole hours of the range are counted from
   * the table's `hours` projection (the engine keeps it exact through inserts and deletes) and
   * only the partial hours at its ends from the entries; the facets on fields with many values
   * (actor, target id, IP) are then counted from the entries in a second statement. Otherwise
   * one pass over the matching entries answers the buckets and every facet.
   */
  async count(
    scope: StatsScope,
    bucket: { firstStart: Date; widthMs: number },
    fields: readonly StatsField[],
  ): Promise<StatsCounts> {
    const hours = wholeHours(scope, bucket.widthMs);
    const counts: StatsCounts = { buckets: [], facets: new Map(fields.map((f) => [f, []])) };
    if (!hours) {
      this.take(await this.read(this.entriesSql(scope, bucket, fields)), fields, bucket, counts);
      return counts;
    }
    const hourly = fields.filter((field) => HOURLY.has(field));
    const others = fields.filter((field) => !HOURLY.has(field));
    this.take(await this.read(this.hoursSql(scope, hours, bucket, hourly)), hourly, bucket, counts);
    if (others.length > 0)
      this.take(await this.read(this.entriesSql(scope, undefined, others)), others, bucket, counts);
    return counts;
  }

  private read(statement: { sql: string; params: Placeholders }): Promise<Row[]> {
    return readStore(() => this.store.query<Row>(statement.sql, statement.params.params));
  }

  /** The buckets (when asked) and the facets of `fields`, counted over the matching entries. */
  private entriesSql(
    scope: StatsScope,
    bucket: { firstStart: Date; widthMs: number } | undefined,
    fields: readonly StatsField[],
  ) {
    const p = new Placeholders();
    const rows = `SELECT ${bucketOf('timestamp', bucket, p)} AS bucket${columnsOf(fields)}, 1 AS n
      FROM ${tableName(this.store, LIVE_TABLE)} WHERE ${scopeCondition(scope, p)}`;
    return { sql: this.grouped(rows, bucket !== undefined, fields), params: p };
  }

  /**
   * The buckets and the facets of `fields` (all hourly) without a query: the whole hours from
   * the projection, grouped exactly as it is (the engine reads it only for such a statement),
   * and the partial hours at the ends from the entries.
   */
  private hoursSql(
    scope: StatsScope,
    hours: { from: Date; to: Date },
    bucket: { firstStart: Date; widthMs: number },
    fields: readonly StatsField[],
  ) {
    const p = new Placeholders();
    const hour = 'toStartOfHour(timestamp)';
    const keys = fields.map((field) => COLUMNS[field]);
    const at = (date: Date) =>
      `toDateTime(${p.add(Math.floor(date.getTime() / 1000), 'Int64')}, 'UTC')`;
    const whole = `SELECT ${bucketOf(`toUnixTimestamp(${hour}) * 1000`, bucket, p)} AS bucket${columnsOf(fields)}, count() AS n
      FROM ${tableName(this.store, LIVE_TABLE)}
      WHERE ${hour} >= ${at(hours.from)} AND ${hour} < ${at(hours.to)}
      GROUP BY bucket${keys.map((key) => `, ${key}`).join('')}`;
    const ends = `SELECT ${bucketOf('timestamp', bucket, p)} AS bucket${columnsOf(fields)}, 1 AS n
      FROM ${tableName(this.store, LIVE_TABLE)}
      WHERE (${scopeCondition({ from: scope.from, to: hours.from }, p)})
        OR (${scopeCondition({ from: hours.to, to: scope.to }, p)})`;
    return { sql: this.grouped(`${whole} UNION ALL ${ends}`, true, fields), params: p };
  }

  /**
   * Rows of `(bucket, f0…, n)` grouped at once by bucket and by each field (grouping sets), each
   * facet cut to its top values in the engine. An empty value is an absent field: it is counted
   * in the buckets and in no facet.
   */
  private grouped(rows: string, withBuckets: boolean, fields: readonly StatsField[]): string {
    const names = fields.map((_, i) => `f${i}`);
    const sets = [...(withBuckets ? ['(bucket)'] : []), ...names.map((name) => `(${name})`)];
    const fieldOf = [
      ...(withBuckets ? ['grouping(bucket) = 0, -1'] : []),
      ...names.map((name, i) => `grouping(${name}) = 0, ${i}`),
    ].join(', ');
    const value =
      names.length > 0
        ? `multiIf(${names.map((name, i) => `field = ${i}, ${name}`).join(', ')}, '')`
        : `''`;
    return `
      SELECT field, toString(bucket) AS bucket, value, toString(n) AS n FROM (
        SELECT field, bucket, value, n,
          row_number() OVER (PARTITION BY field ORDER BY n DESC, value) AS rank
        FROM (
          SELECT multiIf(${fieldOf}, -2) AS field, ${withBuckets ? 'bucket' : '0 AS bucket'}, ${value} AS value, sum(n) AS n
          FROM (${rows})
          GROUP BY GROUPING SETS (${sets.join(', ')}))
        WHERE field = -1 OR value != '')
      WHERE field = -1 OR rank <= ${FACET_SIZE}
      ORDER BY field, rank
      SETTINGS max_execution_time = ${this.timeoutMs / 1000}`;
  }

  private take(
    rows: readonly Row[],
    fields: readonly StatsField[],
    bucket: { firstStart: Date; widthMs: number },
    counts: StatsCounts,
  ): void {
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
  }
}

/** The whole hours of a range without a query, when its buckets are whole hours too. */
function wholeHours(scope: StatsScope, widthMs: number): { from: Date; to: Date } | undefined {
  if (scope.query !== undefined || widthMs % HOUR_MS !== 0) return undefined;
  const from = Math.ceil(scope.from.getTime() / HOUR_MS) * HOUR_MS;
  const to = Math.floor(scope.to.getTime() / HOUR_MS) * HOUR_MS;
  return from < to ? { from: new Date(from), to: new Date(to) } : undefined;
}

/** The bucket of a row whose time in epoch milliseconds is `ms` (0 when no buckets are asked). */
function bucketOf(
  ms: string,
  bucket: { firstStart: Date; widthMs: number } | undefined,
  p: Placeholders,
): string {
  if (!bucket) return '0';
  const time = ms === 'timestamp' ? 'toUnixTimestamp64Milli(timestamp)' : ms;
  return `intDiv(${time} - ${p.add(bucket.firstStart.getTime(), 'Int64')}, ${p.add(bucket.widthMs, 'Int64')})`;
}

const columnsOf = (fields: readonly StatsField[]) =>
  fields.map((field, i) => `, toString(${COLUMNS[field]}) AS f${i}`).join('');
