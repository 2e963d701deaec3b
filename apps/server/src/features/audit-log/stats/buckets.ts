import type { components } from '@secadmin/api-types';
import { invalid } from '../../../lib/errors.js';

export type Interval = components['schemas']['LogStatsInterval'];
type RequestedInterval = NonNullable<components['schemas']['LogStatsRequest']['interval']>;

/** Each interval's width in milliseconds, narrowest first. */
export const INTERVAL_MS: Readonly<Record<Interval, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
};

/** `auto` takes the narrowest interval that gives at most this many buckets. */
export const AUTO_MAX_BUCKETS = 200;
/** No answer holds more buckets than this. */
export const MAX_BUCKETS = 10_000;

/** The buckets of a range: `count` of them, `widthMs` wide, the first starting at `firstStart`. */
export interface Buckets {
  interval: Interval;
  widthMs: number;
  firstStart: Date;
  count: number;
}

function bucketsOf(from: Date, to: Date, interval: Interval): Buckets {
  const widthMs = INTERVAL_MS[interval];
  // Every width divides a day, and the epoch is a UTC midnight: multiples of the width from
  // the epoch are the interval's UTC boundaries. The last bucket holds the instant before `to`.
  const first = Math.floor(from.getTime() / widthMs);
  const last = Math.floor((to.getTime() - 1) / widthMs);
  return { interval, widthMs, firstStart: new Date(first * widthMs), count: last - first + 1 };
}

/**
 * The buckets of `[from, to)` (`from` before `to`) for the requested interval; `auto` is the
 * narrowest one giving at most AUTO_MAX_BUCKETS, else `1d`. More than MAX_BUCKETS is a 400.
 */
export function planBuckets(from: Date, to: Date, requested: RequestedInterval): Buckets {
  const intervals = Object.keys(INTERVAL_MS) as Interval[];
  const plan =
    requested === 'auto'
      ? (intervals
          .map((interval) => bucketsOf(from, to, interval))
          .find((buckets) => buckets.count <= AUTO_MAX_BUCKETS) ?? bucketsOf(from, to, '1d'))
      : bucketsOf(from, to, requested);
  if (plan.count > MAX_BUCKETS) {
    throw invalid(
      'interval',
      `gives ${plan.count} buckets from \`from\` to \`to\`, more than ${MAX_BUCKETS}: send a wider interval or a shorter range`,
    );
  }
  return plan;
}
