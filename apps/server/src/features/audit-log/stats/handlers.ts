import { type Handler, ok } from '../../../http/index.js';
import type { StatsService } from './service.js';

export function statsHandlers(stats: StatsService) {
  const getLogStats: Handler<'getLogStats'> = async ({ body, res }) => {
    ok(res, await stats.stats(body));
  };
  return { getLogStats };
}
