import type { components } from '@secadmin/api-types';
import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import { filterSql } from '../entries/sql.js';
import type { SearchQuery } from '../search/query.js';
import { columnsMatch, searchMatch } from '../search/search-sql.js';
import { HOUR_MS } from './hour-counts.js';

export type StatsField = components['schemas']['LogStatsField'];

/** The column behind each field a facet may count. */
const COLUMNS: Readonly<Record<StatsField, Prisma.Sql>> = {
  event: Prisma.raw('event'),
  result: Prisma.raw('result'),
  origin: Prisma.raw('origin'),
  'actor.id': Prisma.raw('actor_id'),
  'actor.type': Prisma.raw('actor_type'),
  'target.type': Prisma.raw('target_type'),
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
  bucket: Date | null;
  value: string | null;
  n: number;
}

/** The fields the hour counts are kept by (all but `actor.id`). */
const COUNTED_FIELDS: ReadonlySet<StatsField> = new Set([
  'event',
  'result',
  'origin',
  'actor.type',
  'target.type',
]);

/**
 * The whole hours of the range the hour counts answer, and the query as a condition on
 * their columns: when buckets are whole hours (every interval from `1h` on), every field
 * asked for is counted there, and the query (if any) is about `event` and `result` alone.
 * The entries of the part hours at either end, and those not sealed yet, are read.
 */
function countedHours(
  scope: StatsScope,
  widthMs: number,
  fields: readonly StatsField[],
): { from: Date; to: Date; match: Prisma.Sql | undefined } | undefined {
  if (widthMs % HOUR_MS !== 0 || !fields.every((field) => COUNTED_FIELDS.has(field)))
    return undefined;
  const match = scope.query ? columnsMatch(scope.query) : undefined;
  if (scope.query && !match) return undefined;
  const from = new Date(Math.ceil(scope.from.getTime() / HOUR_MS) * HOUR_MS);
  const to = new Date(Math.floor(scope.to.getTime() / HOUR_MS) * HOUR_MS);
  return from < to ? { from, to, match } : undefined;
}

/** A queued entry (`q`) read from its month's partition, or by id if queued without its timestamp. */
const QUEUED_ENTRY = Prisma.sql`
  SELECT * FROM log_entries WHERE id = q.entry_id AND timestamp = q.entry_timestamp
  UNION ALL
  SELECT * FROM log_entries WHERE q.entry_timestamp IS NULL AND id = q.entry_id
  LIMIT 1`;

/** Counts of the entries a search would find, over time and by field. */
export class StatsRepository {
  constructor(private readonly c: Connection) {}

  /**
   * One pass over the matching entries answers the buckets and every facet (grouping sets), and
   * the ranking cuts each facet to its top values in the database, so a field with many
   * distinct values (`actor.id`) costs no more rows than FACET_SIZE. `date_bin` from the first
   * bucket's start puts each entry in its bucket; `COLLATE "C"` orders by code point, whatever
   * the database's collation. `OFFSET 0` keeps the planner from estimating the buckets from the
   * timestamp column's statistics (as many groups as entries): it would sort every matching
   * entry, on disk, rather than hash them into the few buckets there are. Where the hour counts
   * can answer (see `countedHours`), whole hours come from them, each counting as its `n`.
   */
  async count(
    scope: StatsScope,
    bucket: { firstStart: Date; widthMs: number },
    fields: readonly StatsField[],
  ): Promise<StatsCounts> {
    const stride = Prisma.sql`make_interval(secs => ${bucket.widthMs / 1000})`;
    const facetColumns = fields.map(
      (field, i) => Prisma.sql`${COLUMNS[field]} AS f${Prisma.raw(String(i))}`,
    );
    const names = fields.map((_, i) => Prisma.raw(`f${i}`));
    const sets = [Prisma.sql`(bucket)`, ...names.map((name) => Prisma.sql`(${name})`)];
    const fieldOf = Prisma.join(
      [
        Prisma.sql`WHEN GROUPING(bucket) = 0 THEN -1`,
        ...names.map(
          (name, i) => Prisma.sql`WHEN GROUPING(${name}) = 0 THEN ${Prisma.raw(String(i))}`,
        ),
      ],
      ' ',
    );
    const value =
      names.length > 0 ? Prisma.sql`COALESCE(${Prisma.join(names)})` : Prisma.sql`NULL::text`;
    const binned = (column: Prisma.Sql) =>
      Prisma.join([
        Prisma.sql`date_bin(${stride}, ${column}, ${bucket.firstStart}::timestamptz) AS bucket`,
        ...facetColumns,
      ]);
    const matching = scope.query ? Prisma.sql` AND ${searchMatch(scope.query)}` : Prisma.empty;
    const entriesIn = (from: Date, to: Date) => Prisma.sql`
      SELECT ${binned(Prisma.raw('timestamp'))}, 1 AS w FROM log_entries
      WHERE ${filterSql({ from, to })}${matching}`;
    const hours = countedHours(scope, bucket.widthMs, fields);
    const matched = hours
      ? Prisma.sql`
          SELECT ${binned(Prisma.raw('hour'))}, n AS w FROM log_entry_counts
          WHERE hour >= ${hours.from} AND hour < ${hours.to} AND n > 0${
            hours.match ? Prisma.sql` AND ${hours.match}` : Prisma.empty
          }
          UNION ALL ${entriesIn(scope.from, hours.from)}
          UNION ALL ${entriesIn(hours.to, scope.to)}
          UNION ALL
          SELECT ${binned(Prisma.raw('timestamp'))}, 1 AS w FROM log_seal_queue q
          CROSS JOIN LATERAL (${QUEUED_ENTRY}) AS e
          WHERE (q.entry_timestamp IS NULL
                 OR (q.entry_timestamp >= ${hours.from} AND q.entry_timestamp < ${hours.to}))
            AND ${filterSql(hours)}${matching}`
      : entriesIn(scope.from, scope.to);
    const sql = Prisma.sql`
      SELECT field, bucket, value, n FROM (
        SELECT field, bucket, value, n,
          row_number() OVER (PARTITION BY field ORDER BY n DESC, value COLLATE "C") AS rank
        FROM (
          SELECT CASE ${fieldOf} END AS field, bucket, ${value} AS value, sum(w)::float8 AS n
          FROM (${matched} OFFSET 0) AS matched
          GROUP BY GROUPING SETS (${Prisma.join(sets)})) AS grouped
        WHERE field = -1 OR value IS NOT NULL) AS ranked
      WHERE field = -1 OR rank <= ${FACET_SIZE}
      ORDER BY field, rank`;
    const rows = await this.c.sql<Row>(sql.text, sql.values);
    const counts: StatsCounts = { buckets: [], facets: new Map(fields.map((f) => [f, []])) };
    for (const row of rows) {
      if (row.field === -1) {
        if (row.bucket) counts.buckets.push({ start: new Date(row.bucket), count: row.n });
      } else if (row.value !== null) {
        counts.facets
          .get(fields[row.field] as StatsField)
          ?.push({ value: row.value, count: row.n });
      }
    }
    return counts;
  }
}
