import type { paths } from '@secadmin/api-types';
import type { Client } from 'openapi-fetch';
import { operations } from './generated/operations.js';
import type { Body, Data, Query, RequestOptions } from './operation-types.js';
import { type Operation, send } from './resources.js';

type Table = typeof operations;
type PagedId = {
  [O in keyof Table]: Table[O]['cursor'] extends null ? never : O;
}[keyof Table];
type PagedOperation<P extends PagedPath> = {
  [O in PagedId]: Table[O]['path'] extends P ? O : never;
}[PagedId];

/** The path of every cursor-paged operation, e.g. `/v1/users` or `/v1/logs/search`. */
export type PagedPath = Table[PagedId]['path'];

/** What selects the items: the query of a list, the body of a search; without `cursor`. */
export type PageParams<P extends PagedPath> = Omit<
  Table[PagedOperation<P>]['cursor'] extends 'body'
    ? Body<PagedOperation<P>>
    : Query<PagedOperation<P>>,
  'cursor'
>;

/** One item of a page of `P`. */
export type PageItem<P extends PagedPath> = Data<PagedOperation<P>> extends (infer I)[] ? I : never;

/** Options of a walk over pages: they apply to every page's request. */
export type PaginateOptions = Omit<RequestOptions, 'idempotencyKey' | 'ifMatch'>;

/** `paginate`'s arguments after the path: the params are optional when nothing in them is required. */
export type PaginateArgs<P extends PagedPath> =
  Partial<PageParams<P>> extends PageParams<P>
    ? [params?: PageParams<P>, options?: PaginateOptions]
    : [params: PageParams<P>, options?: PaginateOptions];

interface Page {
  data: unknown[];
  pagination: { hasMore: boolean; nextCursor?: string };
}

/** Walks every page of a cursor-paged operation, sending each page's `nextCursor` back as `cursor`. */
export function createPaginate(client: Client<paths>) {
  const byPath = new Map<string, Operation>(
    Object.values(operations)
      .filter((operation) => operation.cursor !== null)
      .map((operation) => [operation.path, operation]),
  );
  return async function* paginate<P extends PagedPath>(
    path: P,
    ...[params, options]: PaginateArgs<P>
  ): AsyncGenerator<PageItem<P>> {
    const operation = byPath.get(path);
    if (operation === undefined) throw new TypeError(`${path} is not a cursor-paged operation`);
    let cursor: string | undefined;
    do {
      options?.signal?.throwIfAborted();
      const selection = cursor === undefined ? params : { ...params, cursor };
      const values = operation.cursor === 'body' ? { body: selection } : { query: selection };
      const page = (await send(client, operation, values, options)) as Page;
      yield* page.data as PageItem<P>[];
      cursor = page.pagination.hasMore ? page.pagination.nextCursor : undefined;
    } while (cursor !== undefined);
  };
}
