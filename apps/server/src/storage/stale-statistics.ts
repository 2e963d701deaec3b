import type { SqlQuery } from '@secadmin/db';
import { type Job, type JobLogger, pollLoop } from '../lib/poll-loop.js';

const EVERY_MS = 10_000;
/**
 * A table is analyzed once this many rows changed since its last analysis, plus a tenth of its
 * rows: PostgreSQL's own autovacuum rule with a larger floor. Autovacuum may be off, yet a
 * backfill must not leave the planner blind.
 */
const CHANGED_ROWS_FLOOR = 1_000;
const CHANGED_SHARE = 0.1;

/**
 * Keeps the planner's statistics of the service's tables current: every few seconds, the
 * tables with many rows changed since their last analysis are analyzed, one at a time.
 */
export function staleStatisticsJob(sql: SqlQuery, logger: JobLogger): Required<Job> {
  return pollLoop({
    name: 'table statistics',
    everyMs: EVERY_MS,
    logger,
    firstTurn: 'after-a-wait',
    turn: async () => {
      await analyzeStaleTables(sql);
    },
  });
}

/** Analyzes every table whose statistics are stale; answers their names. */
export async function analyzeStaleTables(sql: SqlQuery): Promise<string[]> {
  const stale = await sql<{ name: string }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS name
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.n_mod_since_analyze > $1 + $2 * greatest(c.reltuples, 0)
     ORDER BY s.n_mod_since_analyze DESC`,
    [CHANGED_ROWS_FLOOR, CHANGED_SHARE],
  );
  // The names come from the catalog, quoted by format().
  for (const { name } of stale) await sql(`ANALYZE ${name}`);
  return stale.map(({ name }) => name);
}
