import { type Handler, ok, sendJson } from '../../../http/index.js';
import { invalid } from '../../../lib/errors.js';
import { isoMillis } from '../../../lib/time.js';
import type { SearchIndex, SearchIndexStatus } from '../analytics/search-index.js';
import { parseRange } from '../range.js';

function shown(status: SearchIndexStatus) {
  return {
    status: status.status,
    indexedThroughSeq: status.indexedThroughSeq,
    sealedThroughSeq: status.sealedThroughSeq,
    indexedAt: status.indexedAt ? isoMillis(status.indexedAt) : null,
    lagSeconds: status.lagSeconds,
    rebuild: status.rebuild
      ? {
          startedAt: isoMillis(status.rebuild.startedAt),
          indexedThroughSeq: status.rebuild.indexedThroughSeq,
          targetSeq: status.rebuild.targetSeq,
        }
      : null,
  };
}

/** The longest range a check compares (its answer lists an hour per row). */
const CHECK_MAX_MS = 31 * 24 * 3_600_000;

/** The analytics store's state, its rebuild from PostgreSQL, and a comparison with it. */
export function searchIndexHandlers(
  index: Pick<SearchIndex, 'status' | 'requestRebuild' | 'compareHours'>,
) {
  const getSearchIndex: Handler<'getSearchIndex'> = async ({ res }) => {
    ok(res, shown(await index.status()));
  };
  const rebuildSearchIndex: Handler<'rebuildSearchIndex'> = async ({ res }) => {
    await index.requestRebuild();
    sendJson(res, 202, { data: shown(await index.status()) });
  };
  const checkSearchIndex: Handler<'checkSearchIndex'> = async ({ body, res }) => {
    const { from, to } = parseRange(body.from, body.to);
    if (!from || !to) throw invalid(from ? 'to' : 'from', 'is required');
    if (to.getTime() - from.getTime() > CHECK_MAX_MS)
      throw invalid('to', 'must be at most 31 days after from');
    const compared = await index.compareHours(from, to);
    ok(res, {
      ...compared,
      hours: compared.hours.map((hour) => ({ ...hour, start: isoMillis(hour.start) })),
    });
  };
  return { getSearchIndex, rebuildSearchIndex, checkSearchIndex };
}
