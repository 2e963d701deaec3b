import { Prisma } from '@secadmin/db';
import type { LogRow } from '../entries/sql.js';

export const HOUR_MS = 3_600_000;

/** SQL: the UTC hour an entry's `timestamp` falls in (`date_trunc` would take the session's zone). */
export const HOUR_OF_TIMESTAMP = Prisma.raw(
  `date_bin('1 hour', timestamp, TIMESTAMPTZ '1970-01-01 00:00:00+00')`,
);

/** The columns the kept counts are keyed by, besides the hour. */
export type CountedColumns = Pick<
  LogRow,
  'timestamp' | 'event' | 'result' | 'origin' | 'actorType' | 'targetType'
>;

/** How many entries of one hour share these values (a row of `log_entry_counts`). */
export interface HourCount {
  hour: Date;
  event: string;
  result: string;
  origin: string;
  actorType: string;
  targetType: string | null;
  n: number;
}

/** The entries counted per UTC hour and values, one row per distinct key. */
export function countByHour(entries: Iterable<CountedColumns>): HourCount[] {
  const counts = new Map<string, HourCount>();
  for (const e of entries) {
    const hour = Math.floor(e.timestamp.getTime() / HOUR_MS) * HOUR_MS;
    // JSON of the key's values: no separator character can make two keys collide.
    const key = JSON.stringify([hour, e.event, e.result, e.origin, e.actorType, e.targetType]);
    const count = counts.get(key);
    if (count) count.n++;
    else
      counts.set(key, {
        hour: new Date(hour),
        event: e.event,
        result: e.result,
        origin: e.origin,
        actorType: e.actorType,
        targetType: e.targetType,
        n: 1,
      });
  }
  return [...counts.values()];
}
