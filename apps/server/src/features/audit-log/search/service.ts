import type { components } from '@secadmin/api-types';
import { type Cursors, listScope } from '../../../lib/cursor.js';
import { idPattern } from '../../../lib/ids.js';
import { mapInSlices } from '../../../lib/slices.js';
import type { LogRow } from '../entries/sql.js';
import { parseRange } from '../range.js';
import type { Scan } from '../scans.js';
import { compileHighlighter } from './highlight.js';
import { parseSearchQuery } from './query.js';
import { type SearchRepository, TOTAL_HITS_BOUND } from './repository.js';

type SearchRequest = components['schemas']['SearchRequest'];

const LOG_ID = idPattern('log');

export interface SearchResult {
  hits: { row: LogRow; highlights: Record<string, string> }[];
  nextCursor: string | undefined;
  totalHits: number;
  /** `eq`: `totalHits` is exact; `gte`: at least that many match (counting stopped). */
  totalHitsRelation: 'eq' | 'gte';
  searchTimeMs: number;
}

export class SearchService {
  constructor(
    private readonly hits: Pick<SearchRepository, 'search' | 'count'>,
    private readonly cursors: Cursors,
    private readonly scan: Scan,
  ) {}

  async search(request: SearchRequest): Promise<SearchResult> {
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
    const [rows, counted] = await this.scan(() =>
      Promise.all([
        this.hits.search(query, within, after, limit + 1),
        this.hits.count(query, within, request.exactTotal ?? false),
      ]),
    );
    const bounded = !request.exactTotal && counted > TOTAL_HITS_BOUND;
    const page = this.cursors.page(rows, limit, scope, (row) => row.timestamp);
    const highlight = compileHighlighter(query);
    return {
      // Highlighting costs per hit: only the returned page is highlighted, in slices.
      hits: await mapInSlices(page.items, (row) => ({ row, highlights: highlight(row) })),
      nextCursor: page.nextCursor,
      totalHits: bounded ? TOTAL_HITS_BOUND : counted,
      totalHitsRelation: bounded ? 'gte' : 'eq',
      searchTimeMs: Math.round(performance.now() - started),
    };
  }
}
