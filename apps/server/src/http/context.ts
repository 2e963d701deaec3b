import type { KeylessOperationId, OperationId, operations } from '@secadmin/api-types';
import type { Request, Response } from 'express';
import type { RequestActor } from '../lib/actor.js';

type Parameters<Id extends OperationId> = operations[Id]['parameters'];

export type PathParams<Id extends OperationId> =
  Parameters<Id> extends { path: infer P } ? NonNullable<P> : Record<string, never>;

type RawQuery<Id extends OperationId> =
  Parameters<Id> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;

/** Validation fills in the spec's defaults: `limit`, the only query default, is always there. */
export type Query<Id extends OperationId> =
  RawQuery<Id> extends { limit?: infer L }
    ? Omit<RawQuery<Id>, 'limit'> & { limit: NonNullable<L> }
    : RawQuery<Id>;

export type Body<Id extends OperationId> = operations[Id] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** What a handler of a keyless operation gets: its validated inputs. */
export interface KeylessContext<Id extends OperationId> {
  params: PathParams<Id>;
  query: Query<Id>;
  body: Body<Id>;
  requestId: string;
  req: Request;
  res: Response;
}

/** The API key that authenticated a request: what http/ and the checks of its rights read. */
export interface CallerKey {
  id: string;
  principal: string;
  isRoot: boolean;
  plan: string;
  rateLimitPerMinute: number;
  expiresAt: Date | null;
}

/** The key that authenticated the request. */
export interface Authenticated {
  key: CallerKey;
  actor: RequestActor;
}

export type Context<Id extends OperationId> = Id extends KeylessOperationId
  ? KeylessContext<Id>
  : KeylessContext<Id> & Authenticated;

/** Answers one operation; it writes the response (through `http/respond.ts`). */
export type Handler<Id extends OperationId> = (ctx: Context<Id>) => Promise<void> | void;

/** One handler per operation of the spec: a new operation breaks the build until handled. */
export type Handlers = { [Id in OperationId]: Handler<Id> };

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      /** The authenticating key's id, for the request log line. */
      keyId?: string;
      /** The operation served, for the metrics (unset: no route). */
      operationId?: string;
    }
  }
}
