import type { Data } from '@secadmin/api-client';

type LogStats = Data<'getLogStats'>;

import { type KeyboardEvent, useRef, useState } from 'react';
import { utc } from '../../lib/time.js';

const WIDTH_MS: Record<LogStats['interval'], number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
};

/**
 * Matches over time, one bar per bucket. A bar is a button: it zooms into its bucket (the range
 * becomes the bucket, within the current range). One tab stop; arrow keys move between bars.
 */
export function Histogram({
  stats,
  range,
  onZoom,
}: {
  stats: LogStats;
  range: { from: string; to: string };
  onZoom: (from: string, to: string) => void;
}) {
  const [focused, setFocused] = useState(0);
  const bars = useRef<(HTMLButtonElement | null)[]>([]);
  const width = WIDTH_MS[stats.interval];
  const max = Math.max(1, ...stats.buckets.map((b) => b.count));
  const last = stats.buckets.length - 1;

  function move(event: KeyboardEvent, index: number) {
    const next =
      event.key === 'ArrowRight'
        ? Math.min(last, index + 1)
        : event.key === 'ArrowLeft'
          ? Math.max(0, index - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined;
    if (next === undefined) return;
    event.preventDefault();
    setFocused(next);
    bars.current[next]?.focus();
  }

  return (
    <figure className="histogram">
      <figcaption>
        <strong>{stats.total.toLocaleString('en')}</strong> matching entries
        {stats.totalRelation === 'gte' ? ' or more' : ''}, per {stats.interval}. Choose a bar to
        zoom into it.
      </figcaption>
      <fieldset className="bars">
        <legend className="visually-hidden">Matches over time</legend>
        {stats.buckets.map((bucket, i) => {
          const start = Date.parse(bucket.start);
          const from = new Date(Math.max(start, Date.parse(range.from))).toISOString();
          const to = new Date(Math.min(start + width, Date.parse(range.to))).toISOString();
          const label = `${bucket.count.toLocaleString('en')} from ${utc(from)} to ${utc(to)}`;
          return (
            <button
              key={bucket.start}
              ref={(element) => {
                bars.current[i] = element;
              }}
              type="button"
              className="bar"
              tabIndex={i === focused ? 0 : -1}
              aria-label={label}
              title={label}
              onKeyDown={(event) => move(event, i)}
              onFocus={() => setFocused(i)}
              onClick={() => onZoom(from, to)}
            >
              <span style={{ height: `${(bucket.count / max) * 100}%` }} />
            </button>
          );
        })}
      </fieldset>
      <div className="axis" aria-hidden="true">
        <span>{utc(range.from)}</span>
        <span>{utc(range.to)}</span>
      </div>
    </figure>
  );
}
