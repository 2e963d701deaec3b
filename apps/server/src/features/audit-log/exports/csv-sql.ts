/**
 * A log entry's CSV cells before metadata as PostgreSQL has them, comma-joined: the export
 * reads one text per entry instead of 20 columns parsed into objects (faster: bench/results/findings.md).
 * `plainCsvCells` in formats.ts decides whether they are the CSV cells already; the rows
 * where they are not (quoting, a formula guard, a number JavaScript writes otherwise) are
 * written from the entry by `csvLine`.
 */

const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A year before 1 would lose its sign in to_char: NULL drops the cell, so the row fails. */
const timestamp = (column: string, nullable: boolean) =>
  `CASE ${nullable ? `WHEN ${column} IS NULL THEN ''` : ''} WHEN ${column} >= '0001-01-01 00:00:00+00' THEN ${iso(column)} END`;

const CELLS = [
  'id',
  timestamp('timestamp', false),
  'event',
  'actor_id',
  'actor_email',
  'actor_type',
  'target_id',
  'target_type',
  'ip',
  'user_agent',
  'city',
  'country',
  'region',
  'lat::text',
  'lng::text',
  'result',
  'trace_id',
  'origin',
  'ingested_by',
  timestamp('received_at', true),
].map((cell) => (cell.startsWith('CASE') ? cell : `coalesce(${cell}, '')`));

export const PLAIN_CELLS_SQL = `concat_ws(',', ${CELLS.join(', ')}) AS cells`;
