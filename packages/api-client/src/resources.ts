import type { paths } from '@secadmin/api-types';
import type { Client } from 'openapi-fetch';
import { operations, type Resources } from './generated/operations.js';
import type { RequestOptions } from './operation-types.js';
import { pagedCall } from './paged-call.js';

/** One row of the generated operation table. */
export type Operation = (typeof operations)[keyof typeof operations];

/** What goes where in one request. */
export interface RequestValues {
  path?: Record<string, unknown>;
  query?: unknown;
  body?: unknown;
}

// openapi-fetch types each call by its literal path; the table's rows are checked by the generator.
type UntypedRequest = (
  method: string,
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; response: Response }>;

/** The `ETag` each resource was answered with, by the object the call resolved to. */
const etags = new WeakMap<object, string>();

function remembered(resource: unknown, response: Response): unknown {
  const etag = response.headers.get('etag');
  if (etag !== null && typeof resource === 'object' && resource !== null) etags.set(resource, etag);
  return resource;
}

/**
 * The `ETag` the server sent with `resource` (an object a `get`, `create` or `update` resolved
 * to), for `ifMatch` on the next update or delete; `undefined` when it sent none.
 */
export const etagOf = (resource: object): string | undefined => etags.get(resource);

/** Sends one operation and answers what its resource method returns (see `Resources`). */
export async function send(
  client: Client<paths>,
  operation: Operation,
  values: RequestValues,
  options: RequestOptions = {},
): Promise<unknown> {
  const { signal, headers, idempotencyKey, ifMatch } = options;
  // `{ ifMatch: etagOf(listItem) }` would otherwise change the resource unconditionally.
  if ('ifMatch' in options && ifMatch === undefined)
    throw new TypeError(
      'ifMatch is undefined: etagOf() knows only an object that get, create or update resolved to (a list item has no ETag); get the resource first, or leave ifMatch out to change it unconditionally',
    );
  const { data, response } = await (client.request as UntypedRequest)(
    operation.method,
    operation.path,
    {
      params: { path: values.path, query: values.query },
      body: values.body,
      signal,
      headers: {
        ...headers,
        ...(idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
        ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }),
      },
      parseAs: operation.returns === 'response' ? 'stream' : 'json',
    },
  );
  switch (operation.returns) {
    case 'data':
      return remembered((data as { data: unknown }).data, response);
    case 'body':
      return data;
    case 'response':
      return response;
    case 'none':
      return undefined;
  }
}

/**
 * The resource methods, built from the operation table: `(…path params, body?, query?, options?)`.
 * A cursor-paged operation answers a `PagedCall`, whose iteration is `paginate` from its params.
 */
export function createResources(client: Client<paths>, paginate: Paginate): Resources {
  const resources: Record<string, Record<string, (...args: unknown[]) => unknown>> = {};
  for (const operation of Object.values(operations)) {
    const group = resources[operation.group] ?? {};
    resources[operation.group] = group;
    group[operation.name] = (...args) => {
      const path = Object.fromEntries(operation.pathParams.map((name, i) => [name, args[i]]));
      let next = operation.pathParams.length;
      const body = operation.body ? args[next++] : undefined;
      const query = operation.query ? args[next++] : undefined;
      const options = args[next] as RequestOptions | undefined;
      const call = () => send(client, operation, { path, body, query }, options);
      if (operation.cursor === null) return call();
      const params = operation.cursor === 'body' ? body : query;
      return pagedCall(call, () =>
        paginate(operation.path, params, options)[Symbol.asyncIterator](),
      );
    };
  }
  return resources as unknown as Resources;
}

/** `paginate` as the resource methods call it: a path and that operation's params, unchecked. */
export type Paginate = (
  path: string,
  params: unknown,
  options: RequestOptions | undefined,
) => AsyncIterable<unknown>;
