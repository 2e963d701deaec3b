import type { components } from '@secadmin/api-types';
import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import type { SearchQuery } from '../search/query.js';
import { columnsMatch, searchMatch } from '../search/search-sql.js';
import { DAY_MS, HOUR_MS } from './kept-counts.js';

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

interface Span {
  from: Date;
  to: Date;
}

/**
 * What the kept counts answer of a request: the whole hours of its range from the hour counts
 * (with the query as a condition on their columns), and, when `actor.id` is asked for, the
 * whole days from the actor counts. They answer when the buckets are whole hours (every
 * interval from `1h` on), the query (if any) is about `event` and `result` alone, and, with
 * `actor.id`, there is no query (actors are not counted by event) and the range holds a whole
 * day. Entries of the part hours and days at either end, and those not sealed yet, are read.
 */
function keptSpans(
  scope: StatsScope,
  widthMs: number,
  fields: readonly StatsField[],
): { hours: Span; match: Prisma.Sql | undefined; days: Span | undefined } | undefined {
  if (widthMs % HOUR_MS !== 0) return undefined;
  const match = scope.query ? columnsMatch(scope.query) : undefined;
  if (scope.query && !match) return undefined;
  const within = (unitMs: number) => ({
    from: new Date(Math.ceil(scope.from.getTime() / unitMs) * unitMs),
    to: new Date(Math.floor(scope.to.getTime() / unitMs) * unitMs),
  });
  const hours = within(HOUR_MS);
  if (hours.from >= hours.to) return undefined;
  if (!fields.includes('actor.id')) return { hours, match, days: undefined };
  const days = within(DAY_MS);
  return scope.query || days.from >= days.to ? undefined : { hours, match, days };
}

/** A queued entry (`q`) read from its month's partition, or by id if queued without its timestamp. */
const QUEUED_ENTRY = Prisma.sql`
  SELECT * FROM log_entries WHERE id = q.entry_id AND timestamp = q.entry_timestamp
  UNION ALL
  SELECT * FROM log_entries WHERE q.entry_timestamp IS NULL AND id = q.entry_id
  LIMIT 1`;

const inSpan = (column: string, span: Span) =>
  Prisma.sql`${Prisma.raw(column)} >= ${span.from} AND ${Prisma.raw(column)} < ${span.to}`;

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
   * entry, on disk, rather than hash them into the few buckets there are. Where the kept
   * counts answer (`keptSpans`), their rows count as their `n`.
   */
  async count(
    scope: StatsScope,
    bucket: { firstStart: Date; widthMs: number },
    fields: readonly StatsField[],
  ): Promise<StatsCounts> {
    const stride = Prisma.sql`make_interval(secs => ${bucket.widthMs / 1000})`;
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
    // One row source: its bucket column (null: counted in no bucket), and per field its
    // column, or null where the source does not count that field.
    const select = (bucketOf: string | null, columnOf: (field: StatsField) => Prisma.Sql | null) =>
      Prisma.join([
        bucketOf === null
          ? Prisma.sql`NULL::timestamptz AS bucket`
          : Prisma.sql`date_bin(${stride}, ${Prisma.raw(bucketOf)}, ${bucket.firstStart}::timestamptz) AS bucket`,
        ...fields.map(
          (field, i) =>
            Prisma.sql`${columnOf(field) ?? Prisma.sql`NULL::text`} AS f${Prisma.raw(String(i))}`,
        ),
      ]);
    const every = (field: StatsField) => COLUMNS[field];
    const actorOnly = (field: StatsField) => (field === 'actor.id' ? COLUMNS[field] : null);
    const matching = scope.query ? Prisma.sql` AND ${searchMatch(scope.query)}` : Prisma.empty;
    const entries = (
      span: Span,
      columnOf: (field: StatsField) => Prisma.Sql | null = every,
      bucketOf: string | null = 'timestamp',
    ) => Prisma.sql`
      SELECT ${select(bucketOf, columnOf)}, 1 AS w FROM log_entries
      WHERE ${inSpan('timestamp', span)}${matching}`;
    const kept = keptSpans(scope, bucket.widthMs, fields);
    let matched = entries(scope);
    if (kept) {
      const { hours, match, days } = kept;
      const sources = [
        Prisma.sql`
          SELECT ${select('hour', (field) => (field === 'actor.id' ? null : COLUMNS[field]))}, n AS w
          FROM log_entry_counts
          WHERE ${inSpan('hour', hours)} AND n > 0${match ? Prisma.sql` AND ${match}` : Prisma.empty}`,
        entries({ from: scope.from, to: hours.from }),
        entries({ from: hours.to, to: scope.to }),
        // Not sealed yet, so in no kept count: their actor ids only where the actor counts
        // answer (elsewhere in the whole hours, the entries below count those).
        Prisma.sql`
          SELECT ${select('timestamp', (field) =>
            field === 'actor.id' && days
              ? Prisma.sql`CASE WHEN ${inSpan('timestamp', days)} THEN actor_id END`
              : COLUMNS[field],
          )}, 1 AS w
          FROM log_seal_queue q CROSS JOIN LATERAL (${QUEUED_ENTRY}) AS e
          WHERE (q.entry_timestamp IS NULL OR ${inSpan('q.entry_timestamp', hours)})
            AND ${inSpan('timestamp', hours)}${matching}`,
      ];
      if (days)
        sources.push(
          Prisma.sql`
            SELECT ${select(null, actorOnly)}, n AS w FROM log_actor_counts
            WHERE ${inSpan('day', days)} AND n > 0`,
          entries({ from: hours.from, to: days.from }, actorOnly, null),
          entries({ from: days.to, to: hours.to }, actorOnly, null),
        );
      matched = Prisma.join(sources, ' UNION ALL ');
    }
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
