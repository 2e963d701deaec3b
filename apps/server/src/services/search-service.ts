import type { components } from '@secadmin/api-types';
import type { PrismaClient } from '@secadmin/db';
import { decodeCursor, encodeCursor } from '../lib/cursor.js';
import type { LogRow } from '../repositories/logs-repository.js';
import {
  countLogEntries,
  searchLogEntries,
  searchWhere,
} from '../repositories/search-repository.js';
import { highlights } from '../search/highlight.js';
import { parseSearchQuery } from '../search/query.js';
import { parseRange } from './logs-service.js';

type SearchRequest = components['schemas']['SearchRequest'];

const LOG_ID = /^log_[0-9a-hjkmnp-tv-z]{26}$/;

export interface SearchResult {
  hits: { row: LogRow; highlights: Record<string, string> }[];
  nextCursor: string | undefined;
  totalHits: number;
  searchTimeMs: number;
}

export class SearchService {
  constructor(private readonly prisma: PrismaClient) {}

  async search(request: SearchRequest): Promise<SearchResult> {
    const started = performance.now();
    const query = parseSearchQuery(request.query);
    const range = parseRange(request.from, request.to, 'body');
    const limit = request.limit ?? 50;
    const after =
      request.cursor === undefined ? undefined : decodeCursor('search', LOG_ID, request.cursor);
    const where = searchWhere(query, range);
    const [rows, totalHits] = await Promise.all([
      searchLogEntries(this.prisma, where, after, limit + 1),
      countLogEntries(this.prisma, where),
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      // Highlighting costs per hit: only the returned page is highlighted.
      hits: page.map((row) => ({ row, highlights: highlights(row, query) })),
      nextCursor:
        rows.length > limit && last
          ? encodeCursor('search', { at: last.timestamp, id: last.id })
          : undefined,
      totalHits,
      searchTimeMs: Math.round(performance.now() - started),
    };
  }
}
