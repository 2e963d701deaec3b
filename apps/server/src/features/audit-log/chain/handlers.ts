import type { AccessRequest } from '@secadmin/policy';
import { type Handler, ok, sendPage } from '../../../http/index.js';
import type { StateVersions } from '../../../lib/state-versions.js';
import { isoMillis } from '../../../lib/time.js';
import { logDetail } from '../representation.js';
import type { ChainService } from './service.js';

/** A decision on the stored policies for one request (policies' `decide`). */
type Decide = (
  request: Omit<AccessRequest, 'roles'>,
  versions: StateVersions,
) => Promise<{ allowed: boolean }>;

export function chainHandlers(chain: ChainService, decide: Decide) {
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
  const listChainEntries: Handler<'listChainEntries'> = async ({
    query,
    key,
    actor,
    versions,
    res,
  }) => {
    const time = new Date();
    const mayRead = async (entryId: string) =>
      key.isRoot ||
      (
        await decide(
          {
            principal: key.principal,
            action: 'logs:read',
            resource: `logs/${entryId}`,
            context: { ip: actor.ip, time },
          },
          versions,
        )
      ).allowed;
    ok(res, (await chain.run(query.fromSeq, query.toSeq, mayRead)).map(logDetail));
  };
  return { listCheckpoints, getPublicKey, verifyLogs, listChainEntries };
}
