import type { OperationId, operations } from '@secadmin/api-types';

type Responses<O extends OperationId> = operations[O]['responses'];

/** The path parameters of an operation, by name. */
export type PathParams<O extends OperationId> = NonNullable<operations[O]['parameters']['path']>;

/** The query parameters of an operation. */
export type Query<O extends OperationId> = NonNullable<operations[O]['parameters']['query']>;

/** The JSON request body of an operation. */
export type Body<O extends OperationId> =
  NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } }
    ? B
    : never;

/** The JSON body of an operation's success answer: for a list, the page. */
export type JsonBody<O extends OperationId> = {
  [S in keyof Responses<O>]: S extends 200 | 201 | 202
    ? Responses<O>[S] extends { content: { 'application/json': infer T } }
      ? T
      : never
    : never;
}[keyof Responses<O>];

/** The `data` of an operation's success answer: the resource itself. */
export type Data<O extends OperationId> = JsonBody<O> extends { data: infer D } ? D : never;

/** Options of one call. */
export interface RequestOptions {
  /** Aborts the call, including a wait before a retry; the call then rejects with its reason. */
  signal?: AbortSignal;
  /** Headers to add to the request. */
  headers?: Record<string, string>;
  /**
   * The `Idempotency-Key` of a POST. By default each call gets a random one, which makes its own
   * retries safe; pass your own to make a POST safe to repeat across calls or process restarts.
   */
  idempotencyKey?: string;
  /**
   * `If-Match`: the update or delete happens only if the resource still has this `ETag`
   * (`etagOf(resource)` of what a `get` returned), else a 412 `SecadminApiError`.
   */
  ifMatch?: string;
}
