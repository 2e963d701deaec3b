import { type QueryKey, useInfiniteQuery } from '@tanstack/react-query';

interface Page<Item> {
  data: Item[];
  pagination: { hasMore: boolean; nextCursor?: string };
}

/**
 * A cursor-paged list, a page at a time: `items` so far, `fetchNextPage()` for the next page;
 * asked again every `refreshMs` when given (not after an error: the answer would not change).
 */
export function usePages<Item>(
  queryKey: QueryKey,
  page: (cursor?: string) => Promise<Page<Item>>,
  refreshMs?: number,
) {
  const query = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => page(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.nextCursor : undefined),
    refetchInterval: (query) => (refreshMs === undefined || query.state.error ? false : refreshMs),
  });
  return { ...query, items: query.data?.pages.flatMap((p) => p.data) ?? [] };
}

/** "Show more" under a paged list, while the server says there is more. */
export function MoreButton({
  pages,
  what,
}: {
  pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };
  what: string;
}) {
  if (!pages.hasNextPage) return null;
  return (
    <button
      type="button"
      className="secondary"
      disabled={pages.isFetchingNextPage}
      onClick={() => pages.fetchNextPage()}
    >
      {pages.isFetchingNextPage ? 'Loading…' : `Show more ${what}`}
    </button>
  );
}
