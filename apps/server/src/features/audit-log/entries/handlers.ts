import { created, type Handler, ok, preparedFirst, sendPage } from '../../../http/index.js';
import { isoMillis } from '../../../lib/time.js';
import { logDetail, logListItem } from '../representation.js';
import type { LogsService } from './service.js';

export function entryHandlers(logs: LogsService) {
  // The wait for the sealer comes first: under an Idempotency-Key the write runs in a
  // transaction, and a wait there would hold a connection the sealer needs.
  const ingestLogs = preparedFirst<'ingestLogs', void>(
    () => logs.sealerCaughtUp(),
    async ({ body, key, res }) => {
      const acks = await logs.ingest(body.entries, key.id);
      created(
        res,
        acks.map((ack) => ({ id: ack.id, timestamp: isoMillis(ack.timestamp) })),
      );
    },
  );
  const listLogs: Handler<'listLogs'> = async ({ query, key, res }) => {
    const page = await logs.list(query, key.principal);
    sendPage(res, { items: page.items.map(logListItem), nextCursor: page.nextCursor });
  };
  const getLog: Handler<'getLog'> = async ({ params, res }) => {
    ok(res, logDetail(await logs.get(params.id)));
  };
  return { ingestLogs, listLogs, getLog };
}
