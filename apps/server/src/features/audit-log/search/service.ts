import type { components } from '@secadmin/api-types';
import { type Cursors, listScope } from '../../../lib/cursor.js';
import { idPattern } from '../../../lib/ids.js';
import { mapInSlices } from '../../../lib/slices.js';
import type { IndexFreshness } from '../analytics/freshness.js';
import type { SearchStore } from '../analytics/search-store.js';
import type { LogRow } from '../entries/sql.js';
import { parseRange } from '../range.js';
import type { Scan } from '../scans.js';
import { compileHighlighter } from './highlight.js';
import type { HitRows } from './hit-rows.js';
import { parseSearchQuery } from './query.js';

type SearchRequest = components['schemas']['SearchRequest'];

const LOG_ID = idPattern('log');

export interface SearchResult {
  hits: { row: LogRow; highlights: Record<string, string> }[];
  nextCursor: string | undefined;
  /** Exact, whatever the count. */
  totalHits: number;
  searchTimeMs: number;
  /** Every sealed entry up to this seq is in the store the answer comes from. */
  indexedThroughSeq: number;
  indexedAt: Date | null;
}

export class SearchService {
  constructor(
    private readonly store: SearchStore,
    private readonly rows: HitRows,
    private readonly freshness: IndexFreshness,
    private readonly cursors: Cursors,
    private readonly scan: Scan,
  ) {}

  /** `caller`: the principal asking, whose turns at the store are bounded (`Scan`). */
  async search(request: SearchRequest, caller: string): Promise<SearchResult> {
    const started = performance.now();
    const query = parseSearchQuery(request.query);
    const limit = request.limit ?? 50;
    const { origin } = request;
    const within = { ...parseRange(request.from, request.to), origin };
    const scope = listScope('search', {
      query: request.query,
      from: request.from,
      to: request.to,
      origin,
    });
    const after = this.cursors.decode(scope, LOG_ID, request.cursor);
    const indexed = await this.freshness.answering();
    const [found, totalHits] = await this.scan(caller, () =>
      Promise.all([
        this.store.hits(query, within, after, limit + 1),
        this.store.count(query, within),
      ]),
    );
    const rows = await this.rows.of(found.slice(0, limit));
    // The cursor points at the last hit of the page, as the store ordered it.
    const last = found.length > limit ? found[limit - 1] : undefined;
    const highlight = compileHighlighter(query);
    return {
      // Highlighting costs per hit: only the returned page is highlighted, in slices.
      hits: await mapInSlices(rows, (row) => ({ row, highlights: highlight(row) })),
      nextCursor: last
        ? this.cursors.encode(scope, { at: last.timestamp, id: last.id })
        : undefined,
      totalHits,
      searchTimeMs: Math.round(performance.now() - started),
      indexedThroughSeq: indexed.indexedThroughSeq,
      indexedAt: indexed.indexedAt,
    };
  }
}
