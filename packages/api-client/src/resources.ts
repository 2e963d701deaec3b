import type { paths } from '@secadmin/api-types';
import type { Client } from 'openapi-fetch';
import { operations, type Resources } from './generated/operations.js';
import type { RequestOptions } from './operation-types.js';

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

/** Sends one operation and answers what its resource method returns (see `Resources`). */
export async function send(
  client: Client<paths>,
  operation: Operation,
  values: RequestValues,
  options: RequestOptions = {},
): Promise<unknown> {
  const { signal, headers, idempotencyKey } = options;
  const { data, response } = await (client.request as UntypedRequest)(
    operation.method,
    operation.path,
    {
      params: { path: values.path, query: values.query },
      body: values.body,
      signal,
      headers:
        idempotencyKey === undefined ? headers : { ...headers, 'Idempotency-Key': idempotencyKey },
      parseAs: operation.returns === 'response' ? 'stream' : 'json',
    },
  );
  switch (operation.returns) {
    case 'data':
      return (data as { data: unknown }).data;
    case 'body':
      return data;
    case 'response':
      return response;
    case 'none':
      return undefined;
  }
}

/** The resource methods, built from the operation table: `(…path params, body?, query?, options?)`. */
export function createResources(client: Client<paths>): Resources {
  const resources: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const operation of Object.values(operations)) {
    const group = resources[operation.group] ?? {};
    resources[operation.group] = group;
    group[operation.name] = (...args) => {
      const path = Object.fromEntries(operation.pathParams.map((name, i) => [name, args[i]]));
      let next = operation.pathParams.length;
      const body = operation.body ? args[next++] : undefined;
      const query = operation.query ? args[next++] : undefined;
      return send(client, operation, { path, body, query }, args[next] as RequestOptions);
    };
  }
  return resources as unknown as Resources;
}
