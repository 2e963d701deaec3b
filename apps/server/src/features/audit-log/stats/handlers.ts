import { type Handler, sendJson } from '../../../http/index.js';
import { isoMillis } from '../../../lib/time.js';
import type { StatsService } from './service.js';

export function statsHandlers(stats: StatsService) {
  const getLogStats: Handler<'getLogStats'> = async ({ body, key, res }) => {
    const { stats: data, indexed } = await stats.stats(body, key.principal);
    sendJson(res, 200, {
      data,
      meta: {
        indexedThroughSeq: indexed.indexedThroughSeq,
        indexedAt: indexed.indexedAt ? isoMillis(indexed.indexedAt) : null,
      },
    });
  };
  return { getLogStats };
}
