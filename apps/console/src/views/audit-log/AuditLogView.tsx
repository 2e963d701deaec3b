import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { navigate, useLocation } from '../../shell/location.js';
import { EntryDrawer } from './EntryDrawer.js';
import { FACETS, Facets } from './Facets.js';
import { Histogram } from './Histogram.js';
import { HitList, type Row } from './HitList.js';
import { SearchForm } from './SearchForm.js';
import { readSearch, type SearchState, withQualifier, writeSearch } from './search-state.js';

const PAGE = 100;

export default function AuditLogView() {
  const client = useClient();
  const { state: fragment } = useLocation();
  const state = readSearch(fragment);
  const { query, from, to } = state;
  const go = useCallback(
    (next: SearchState, replace = false) => navigate('logs', writeSearch(next), replace),
    [],
  );
  // A range taken by default is written into the address, so that the address, shared, shows
  // the same entries.
  const complete = fragment.has('from') && fragment.has('to');
  useEffect(() => {
    if (!complete) go(state, true);
  });

  const hits = useInfiniteQuery({
    queryKey: ['hits', query, from, to],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam: cursor, signal }) => {
      const page = query
        ? await client.logs.search(
            { query, from, to, limit: PAGE, ...(cursor ? { cursor } : {}) },
            { signal },
          )
        : await client.logs.list(
            { from, to, limit: PAGE, ...(cursor ? { cursor } : {}) },
            { signal },
          );
      const total = 'totalHits' in page.meta ? page.meta : undefined;
      return { rows: page.data as Row[], pagination: page.pagination, total };
    },
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.nextCursor : undefined),
  });
  const stats = useQuery({
    queryKey: ['stats', query, from, to],
    queryFn: ({ signal }) =>
      client.logs.getStats(
        { ...(query ? { query } : {}), from, to, groupBy: FACETS.map((facet) => facet.field) },
        { signal },
      ),
  });
  const rows = useMemo(() => hits.data?.pages.flatMap((page) => page.rows) ?? [], [hits.data]);
  const { fetchNextPage } = hits;
  const more = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const exportState = new URLSearchParams({ from, to, ...(query ? { q: query } : {}) });

  return (
    <section aria-labelledby="audit-log-title" className="audit-log">
      <h1 id="audit-log-title">Audit log</h1>
      <SearchForm state={state} error={hits.error} onSearch={(next) => go({ ...next })} />
      <p className="actions">
        <Link view="exports" state={exportState}>
          {query ? 'Export this search' : 'Export this range'}
        </Link>
      </p>
      {hits.isError && (
        <ApiErrorMessage
          error={hits.error}
          doing={query ? 'search the log' : 'list the log'}
          shownAtFields={['body.query']}
        />
      )}
      {stats.isError && !hits.isError && (
        <ApiErrorMessage error={stats.error} doing="count matches over time" />
      )}
      {/* A search the API refused has no matches to show, not zero of them. */}
      {stats.data && !hits.isError && (
        <Histogram
          stats={stats.data}
          range={{ from, to }}
          onZoom={(zoomFrom, zoomTo) => go({ query, from: zoomFrom, to: zoomTo })}
        />
      )}
      <div className="results">
        {stats.data?.facets && !hits.isError ? (
          <Facets
            facets={stats.data.facets}
            onPick={(qualifier, value) =>
              go({ query: withQualifier(query, qualifier, value), from, to })
            }
          />
        ) : (
          <div />
        )}
        <div className="list">
          {hits.isPending && <p aria-live="polite">Searching…</p>}
          {hits.data && (
            <p className="summary" aria-live="polite">
              {summary(rows.length, hits.data.pages[0]?.total)}
            </p>
          )}
          {hits.data && rows.length > 0 && (
            <HitList
              rows={rows}
              hasMore={hits.hasNextPage}
              loadingMore={hits.isFetchingNextPage}
              onMore={more}
              onOpen={(entry) => go({ ...state, entry })}
            />
          )}
        </div>
      </div>
      {state.entry && <EntryDrawer id={state.entry} onClose={() => go({ query, from, to })} />}
    </section>
  );
}

function summary(
  shown: number,
  total: { totalHits: number; totalHitsRelation: 'eq' | 'gte' } | undefined,
): string {
  if (shown === 0) return 'No entry matches.';
  if (!total) return `Showing ${shown.toLocaleString('en')} entries, newest first.`;
  const count = `${total.totalHits.toLocaleString('en')}${total.totalHitsRelation === 'gte' ? '+' : ''}`;
  return `${count} matches; showing ${shown.toLocaleString('en')}, newest first.`;
}
