import type { paths } from '@secadmin/api-types';
import createClient, { type Client } from 'openapi-fetch';
import { throwOnError } from './errors.js';
import { type Exports, withExportHelpers } from './export-helpers.js';
import type { Resources } from './generated/operations.js';
import { requestHeaders } from './headers.js';
import { createPaginate, type PagedPath, type PageItem, type PaginateArgs } from './pagination.js';
import { createResources, etagOf, type Paginate } from './resources.js';
import { type RetryOptions, withRetries } from './retry.js';
import { type Fetch, withTimeout } from './transport.js';

/** How {@link createSecadminClient} reaches the server. */
export interface SecadminClientOptions {
  /** The server's origin, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * An API key secret (`sk_…`), sent as `Authorization: Bearer`. Leave it out only to call the
   * public endpoints; given, it must be a non-empty string (an unset variable is an error here,
   * not a 401 later).
   */
  apiKey?: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: Fetch;
  /**
   * How long each attempt may wait for the response headers, in ms (default 30 000; `Infinity`
   * for no limit). Past it the attempt fails with a `SecadminConnectionError` and may be retried.
   */
  timeout?: number;
  /** Retries on 429, 503 and connection errors; see {@link RetryOptions}. */
  retry?: RetryOptions;
  /**
   * Send a random `Idempotency-Key` with every POST that has none (default true), which makes
   * resending it after a lost answer safe. Without one, a POST is only retried after a 429.
   */
  idempotencyKeys?: boolean;
}

/**
 * A client of the secadmin API: a method per operation, grouped by resource
 * (`client.users.get(id)`), {@link SecadminClient.paginate} to walk every page of a list or
 * search, and underneath the openapi-fetch client itself (`client.GET('/v1/users/{id}', …)`,
 * `client.use(middleware)`) for what the methods do not give, such as response headers.
 */
export interface SecadminClient extends Client<paths>, Omit<Resources, 'exports'> {
  /** Exports, with {@link ExportHelpers}: `wait(exportId)` and `download(downloadUrl)`. */
  exports: Exports;
  /** The `ETag` the server sent with a resource a call resolved to, for `ifMatch`. */
  etagOf(resource: object): string | undefined;
  /**
   * Yields every item of a cursor-paged operation, page after page, following
   * `pagination.nextCursor`: `for await (const user of client.paginate('/v1/users', { role }))`
   * or, for a search, whose cursor goes in the body,
   * `client.paginate('/v1/logs/search', { query: 'login' }, { signal })`.
   */
  paginate<P extends PagedPath>(path: P, ...args: PaginateArgs<P>): AsyncGenerator<PageItem<P>>;
}

/** Creates a client; see {@link SecadminClientOptions}. */
export function createSecadminClient(options: SecadminClientOptions): SecadminClient {
  if ('apiKey' in options && (typeof options.apiKey !== 'string' || options.apiKey === ''))
    throw new TypeError(
      'createSecadminClient: apiKey is empty or not a string (an unset environment variable?). Pass the key (sk_…), or leave apiKey out to call only the public endpoints.',
    );
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: withRetries(withTimeout(baseFetch, options.timeout ?? 30_000), options.retry),
    // Array query parameters of this API are comma-separated lists (`events=a,b`).
    querySerializer: { array: { style: 'form', explode: false } },
  });
  client.use(
    requestHeaders({ apiKey: options.apiKey, idempotencyKeys: options.idempotencyKeys ?? true }),
    throwOnError,
  );
  const paginate = createPaginate(client);
  const resources = createResources(client, paginate as Paginate);
  return Object.assign(client, resources, {
    exports: withExportHelpers(resources.exports),
    paginate,
    etagOf,
  });
}
