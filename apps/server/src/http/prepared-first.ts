import type { OperationId } from '@secadmin/api-types';
import type { Context, Handler } from './context.js';

/** A handler with work to do before the request's transaction opens (see `preparedFirst`). */
export interface PreparedHandler<Id extends OperationId, P> {
  (ctx: Context<Id>): Promise<void>;
  /** Run by the dispatcher before any transaction of the request; its result reaches the handler. */
  prepare(ctx: Context<Id>): Promise<P>;
}

/**
 * A handler whose wait that needs no transaction (ingest's wait for the sealer) runs before the
 * request's transaction opens: under an `Idempotency-Key` that transaction holds one of the
 * pool's connections, which the wait would keep from the job it waits for.
 */
export function preparedFirst<Id extends OperationId, P>(
  prepare: (ctx: Context<Id>) => Promise<P>,
  handle: (ctx: Context<Id>, prepared: P) => Promise<void>,
): PreparedHandler<Id, P> & Handler<Id> {
  const handler = async (ctx: Context<Id>) => {
    const given = ctx as Context<Id> & { prepared?: { value: P } };
    await handle(ctx, given.prepared ? given.prepared.value : await prepare(ctx));
  };
  return Object.assign(handler, { prepare });
}
