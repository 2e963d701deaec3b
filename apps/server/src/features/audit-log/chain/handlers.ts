import { type Handler, ok, sendPage } from '../../../http/index.js';
import type { RequestActor } from '../../../lib/actor.js';
import { isoMillis } from '../../../lib/time.js';
import { logDetail } from '../representation.js';
import type { ChainService } from './service.js';

/** Whether the caller may do an action on a resource (policies' `permits`). */
export type Permits = (actor: RequestActor, action: string, resource: string) => Promise<boolean>;

export function chainHandlers(chain: ChainService, permits: Permits) {
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
  // Each entry is read as GET /v1/logs/{id} reads it: `logs:read` on `logs/<id>`.
  const listChainEntries: Handler<'listChainEntries'> = async ({ query, actor, res }) => {
    const mayRead = (entryId: string) => permits(actor, 'logs:read', `logs/${entryId}`);
    ok(res, (await chain.run(query.fromSeq, query.toSeq, mayRead)).map(logDetail));
  };
  return { listCheckpoints, getPublicKey, verifyLogs, listChainEntries };
}
