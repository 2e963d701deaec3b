import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import {
  countOf,
  countWhere,
  filterSql,
  HIT_COLUMNS,
  keysetAfter,
  type LogFilter,
  type LogPosition,
  type LogRow,
  newestSql,
} from '../entries/sql.js';
import type { SearchQuery } from './query.js';
import { searchMatch } from './search-sql.js';

/** The search total is exact up to this many hits; beyond it, counting stops. */
export const TOTAL_HITS_BOUND = 10_000;

/** The most hits one search statement reads (a search of a larger page takes several). */
export const SEARCH_CHUNK_ROWS = 100;

/** How many of the newest entries a search looks through before it asks the inverted index. */
export const RECENT_WINDOW = 2_000;

/** Where a search looks: its time range and origin. */
export type SearchScope = Pick<LogFilter, 'from' | 'to' | 'origin'>;

/** Hits of a parsed search query, and how many there are. */
export class SearchRepository {
  constructor(private readonly c: Connection) {}

  /**
   * Hits of a parsed search query within its scope, newest first, fetched in statements of
   * at most SEARCH_CHUNK_ROWS: each statement takes the cheap plan once its RECENT_WINDOW holds
   * that many hits, where one statement for a whole page would need most of its window to
   * match, and would leave a common query to the plan over the whole log.
   */
  async search(
    query: SearchQuery,
    scope: SearchScope,
    after: LogPosition | undefined,
    take: number,
  ): Promise<LogRow[]> {
    const rows: LogRow[] = [];
    let position = after;
    while (rows.length < take) {
      const wanted = Math.min(SEARCH_CHUNK_ROWS, take - rows.length);
      const chunk = await this.searchChunk(query, scope, position, wanted);
      rows.push(...chunk);
      const last = chunk[chunk.length - 1];
      if (chunk.length < wanted || !last) break;
      position = { at: last.timestamp, id: last.id };
    }
    return rows;
  }

  /**
   * When the newest RECENT_WINDOW entries (after the cursor) hold `take` hits, they are the
   * hits: a cost that does not grow with the log, whatever the planner makes of the query (it
   * takes the words of a phrase as independent, so a common phrase looks rare to it).
   * Otherwise hits are rare among the newest entries, and the planner's plan over the whole
   * log answers: for a rare query, the inverted index and a sort of its few hits.
   */
  private async searchChunk(
    query: SearchQuery,
    scope: SearchScope,
    after: LogPosition | undefined,
    take: number,
  ): Promise<LogRow[]> {
    const match = searchMatch(query);
    const within = filterSql(scope);
    const recent = Prisma.sql`
      SELECT ${HIT_COLUMNS} FROM (
        SELECT * FROM log_entries WHERE ${within} ${keysetAfter(after)}
        ORDER BY timestamp DESC, id DESC
        LIMIT ${RECENT_WINDOW}) AS log_entries
        LEFT JOIN log_chain ON log_chain.entry_id = log_entries.id
      WHERE ${match}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}`;
    const rows = await this.c.sql<LogRow>(recent.text, recent.values);
    if (rows.length === take) return rows;
    const newest = newestSql(Prisma.sql`${match} AND ${within}`, after, take, HIT_COLUMNS);
    return this.c.sql<LogRow>(newest.text, newest.values);
  }

  /**
   * How many entries match a search: exactly, or when `exact` is false, exactly up to
   * TOTAL_HITS_BOUND and otherwise TOTAL_HITS_BOUND + 1 (the inner LIMIT stops the scan).
   */
  count(query: SearchQuery, scope: SearchScope, exact: boolean): Promise<number> {
    const where = Prisma.sql`${searchMatch(query)} AND ${filterSql(scope)}`;
    if (exact) return countWhere(this.c, where);
    return countOf(
      this.c,
      Prisma.sql`
        SELECT count(*)::int AS n
        FROM (SELECT 1 FROM log_entries WHERE ${where} LIMIT ${TOTAL_HITS_BOUND + 1}) AS bounded`,
    );
  }
}
