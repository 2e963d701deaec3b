import type { LogEntryListItem, SearchHit } from '@secadmin/api-client';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { utc } from '../../lib/time.js';
import { Highlighted } from './Highlighted.js';

export type Row = (SearchHit | LogEntryListItem) & { highlights?: Record<string, string> };

/** Fields a row shows in its columns; other highlighted fields are listed under them. */
const SHOWN = new Set(['event', 'actor.email', 'actor.id']);

function Text({ row, field, text }: { row: Row; field: string; text: string }) {
  const html = row.highlights?.[field];
  return html ? <Highlighted html={html} /> : text;
}

/**
 * The matching entries, newest first, as a list of which only the rows in view are in the
 * page (TanStack Virtual); each row opens its entry. Scrolling near the end loads the next page.
 */
export function HitList({
  rows,
  hasMore,
  loadingMore,
  onMore,
  onOpen,
}: {
  rows: Row[];
  hasMore: boolean;
  loadingMore: boolean;
  onMore: () => void;
  onOpen: (id: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 58,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? 0;
  const nearEnd = lastShown >= rows.length - 10;
  useEffect(() => {
    if (hasMore && !loadingMore && nearEnd) onMore();
  }, [hasMore, loadingMore, nearEnd, onMore]);

  return (
    <div className="hits">
      <div ref={scroller} className="scroller">
        <ol aria-label="Matching entries" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const row = rows[item.index] as Row;
            const extra = Object.entries(row.highlights ?? {}).filter(([f]) => !SHOWN.has(f));
            return (
              <li
                key={row.id}
                data-index={item.index}
                ref={virtualizer.measureElement}
                aria-setsize={hasMore ? -1 : rows.length}
                aria-posinset={item.index + 1}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <button type="button" className="hit" onClick={() => onOpen(row.id)}>
                  <span className="time mono">{utc(row.timestamp)}</span>
                  <span className="event">
                    <Text row={row} field="event" text={row.event} />
                  </span>
                  <span className="actor">
                    {row.actor.email ? (
                      <Text row={row} field="actor.email" text={row.actor.email} />
                    ) : (
                      <Text row={row} field="actor.id" text={row.actor.id ?? row.actor.type} />
                    )}
                  </span>
                  <span className={`result ${row.result}`}>{row.result}</span>
                  <span className="origin muted">{row.origin}</span>
                  {extra.length > 0 && (
                    <span className="more">
                      {extra.map(([field, html]) => (
                        <span key={field}>
                          <span className="muted">{field}:</span> <Highlighted html={html} />
                        </span>
                      ))}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ol>
      </div>
      {hasMore && (
        <button
          type="button"
          className="secondary more-button"
          onClick={onMore}
          disabled={loadingMore}
        >
          {loadingMore ? 'Loading more…' : 'Load more entries'}
        </button>
      )}
    </div>
  );
}
