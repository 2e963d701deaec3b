import { type Handler, ok, sendPage } from '../../../http/index.js';
import { isoMillis } from '../../../lib/time.js';
import { logDetail } from '../representation.js';
import type { ChainService } from './service.js';

export function chainHandlers(chain: ChainService) {
  const listCheckpoints: Handler<'listCheckpoints'> = async ({ query, res }) => {
    const page = await chain.checkpoints(query.limit, query.cursor);
    sendPage(res, {
      items: page.items.map(({ seq, hash, signature, createdAt }) => ({
        seq,
        hash,
        signature,
        createdAt: isoMillis(createdAt),
      })),
      nextCursor: page.nextCursor,
    });
  };
  const getPublicKey: Handler<'getPublicKey'> = async ({ res }) => {
    ok(res, await chain.publicKey());
  };
  const verifyLogs: Handler<'verifyLogs'> = async ({ body, res }) => {
    ok(res, await chain.verify(body ?? {}));
  };
  const listChainEntries: Handler<'listChainEntries'> = async ({ query, res }) => {
    ok(res, (await chain.run(query.fromSeq, query.toSeq)).map(logDetail));
  };
  return { listCheckpoints, getPublicKey, verifyLogs, listChainEntries };
}
