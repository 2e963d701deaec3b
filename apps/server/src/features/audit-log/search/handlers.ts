import { type Handler, sendPage } from '../../../http/index.js';
import { isoMillis } from '../../../lib/time.js';
import { logListItem } from '../representation.js';
import type { SearchService } from './service.js';

export function searchHandlers(search: SearchService) {
  const searchLogs: Handler<'searchLogs'> = async ({ body, key, res }) => {
    const result = await search.search(body, key.principal);
    const data = result.hits.map(({ row, highlights }) => {
      const { id, timestamp, event, actor, result: outcome, origin } = logListItem(row);
      return { id, timestamp, event, actor, result: outcome, origin, highlights };
    });
    sendPage(
      res,
      { items: data, nextCursor: result.nextCursor },
      {
        totalHits: result.totalHits,
        totalHitsRelation: 'eq',
        searchTimeMs: result.searchTimeMs,
        indexedThroughSeq: result.indexedThroughSeq,
        indexedAt: result.indexedAt ? isoMillis(result.indexedAt) : null,
      },
    );
  };
  return { searchLogs };
}
