import type { components } from '@secadmin/api-types';
import { type Cursors, listScope } from '../../../lib/cursor.js';
import type { Store } from '../../../storage/repositories.js';
import { parseRange } from '../range.js';
import type { LogRow } from '../repository.js';
import { highlights } from './highlight.js';
import { parseSearchQuery } from './query.js';

type SearchRequest = components['schemas']['SearchRequest'];

const LOG_ID = /^log_[0-9a-hjkmnp-tv-z]{26}$/;

export interface SearchResult {
  hits: { row: LogRow; highlights: Record<string, string> }[];
  nextCursor: string | undefined;
  totalHits: number;
  searchTimeMs: number;
}

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
  ) {}

  async search(request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const query = parseSearchQuery(request.query);
    const range = parseRange(request.from, request.to);
    const limit = request.limit ?? 50;
    const scope = listScope('search', { query: request.query, from: request.from, to: request.to });
    const after = this.cursors.decode(scope, LOG_ID, request.cursor);
    const [rows, totalHits] = await Promise.all([
      this.store.logs.search(query, range, after, limit + 1),
      this.store.logs.countSearch(query, range),
    ]);
    const page = this.cursors.page(rows, limit, scope, (row) => row.timestamp);
    return {
      // Highlighting costs per hit: only the returned page is highlighted.
      hits: page.items.map((row) => ({ row, highlights: highlights(row, query) })),
      nextCursor: page.nextCursor,
      totalHits,
      searchTimeMs: Math.round(performance.now() - started),
    };
  }
}
