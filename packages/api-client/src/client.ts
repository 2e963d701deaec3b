import type { paths } from '@secadmin/api-types';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { SecadminApiError } from './errors.js';
import { type RetryOptions, withRetryOn429 } from './retry.js';

export interface SecadminClientOptions {
  /** The server's origin, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** An API key secret (`sk_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Retry on 429 honouring `Retry-After`; see {@link RetryOptions}. */
  retry?: RetryOptions;
}

/** GET operations that answer a cursor page. */
export type ListPath = '/v1/users' | '/v1/policies' | '/v1/logs' | '/v1/api-keys';

type ListOperation<P extends ListPath> = paths[P]['get'];
export type ListItem<P extends ListPath> =
  ListOperation<P>['responses'][200]['content']['application/json']['data'][number];
export type ListQuery<P extends ListPath> = Omit<
  NonNullable<ListOperation<P>['parameters']['query']>,
  'cursor'
>;

export interface SecadminClient extends Client<paths> {
  /**
   * Walks every page of a list, following `pagination.nextCursor`:
   * `for await (const user of client.paginate('/v1/users', { limit: 100 }))`.
   */
  paginate<P extends ListPath>(path: P, query?: ListQuery<P>): AsyncGenerator<ListItem<P>>;
}

function bearerAuth(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${apiKey}`);
      return request;
    },
  };
}

/** Turns every non-2xx answer into a thrown {@link SecadminApiError}. */
const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await SecadminApiError.fromResponse(response);
    return response;
  },
};

export function createSecadminClient(options: SecadminClientOptions): SecadminClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: withRetryOn429(baseFetch, options.retry),
    // Array query parameters of this API are comma-separated lists (`events=a,b`).
    querySerializer: { array: { style: 'form', explode: false } },
  });
  if (options.apiKey !== undefined) client.use(bearerAuth(options.apiKey));
  client.use(throwOnError);

  async function* paginate<P extends ListPath>(
    path: P,
    query?: ListQuery<P>,
  ): AsyncGenerator<ListItem<P>> {
    let cursor: string | undefined;
    do {
      // openapi-fetch cannot narrow a union of paths; the page shape is the same for each.
      const get = client.GET as unknown as (
        path: ListPath,
        init: { params: { query: Record<string, unknown> } },
      ) => Promise<{
        data?: { data: ListItem<P>[]; pagination: { hasMore: boolean; nextCursor?: string } };
      }>;
      const { data: page } = await get(path, {
        params: { query: { ...query, ...(cursor === undefined ? {} : { cursor }) } },
      });
      if (page === undefined) return;
      yield* page.data;
      cursor = page.pagination.hasMore ? page.pagination.nextCursor : undefined;
    } while (cursor !== undefined);
  }

  return Object.assign(client, { paginate });
}
