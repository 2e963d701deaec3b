import { Prisma } from '@secadmin/db';
import type { LogRow } from '../entries/sql.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** SQL: the UTC hour and day an entry's `timestamp` falls in (`date_trunc` takes the session's zone). */
export const HOUR_OF_TIMESTAMP = Prisma.raw(
  `date_bin('1 hour', timestamp, TIMESTAMPTZ '1970-01-01 00:00:00+00')`,
);
export const DAY_OF_TIMESTAMP = Prisma.raw(
  `date_bin('1 day', timestamp, TIMESTAMPTZ '1970-01-01 00:00:00+00')`,
);

/** The columns the kept counts are keyed by, besides the time. */
export type CountedColumns = Pick<
  LogRow,
  'timestamp' | 'event' | 'result' | 'origin' | 'actorId' | 'actorType' | 'targetType'
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

/** How many entries of one day one actor id has (a row of `log_actor_counts`). */
export interface ActorDayCount {
  day: Date;
  actorId: string;
  n: number;
}

/** What the sealer adds to the kept counts for a batch of entries. */
export interface KeptCounts {
  hours: HourCount[];
  actorDays: ActorDayCount[];
}

/**
 * Adds one to the count at `path` in nested maps, one level per key value (null included),
 * adding a fresh count to `out` the first time: no key is serialized (the sealer counts every
 * entry it seals, and building a string key per entry cost more than the rest).
 */
function bump<T extends { n: number }>(
  root: Map<unknown, unknown>,
  path: readonly unknown[],
  fresh: () => T,
  out: T[],
): void {
  let level = root;
  const last = path.length - 1;
  for (let i = 0; i < last; i++) {
    let next = level.get(path[i]) as Map<unknown, unknown> | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(path[i], next);
    }
    level = next;
  }
  const count = level.get(path[last]) as T | undefined;
  if (count !== undefined) count.n++;
  else {
    const created = fresh();
    level.set(path[last], created);
    out.push(created);
  }
}

/** The entries counted per UTC hour and values, and per UTC day and actor id. */
export function keptCounts(entries: Iterable<CountedColumns>): KeptCounts {
  const counts: KeptCounts = { hours: [], actorDays: [] };
  const hours = new Map<unknown, unknown>();
  const actorDays = new Map<unknown, unknown>();
  for (const e of entries) {
    const hour = Math.floor(e.timestamp.getTime() / HOUR_MS) * HOUR_MS;
    bump(
      hours,
      [hour, e.event, e.result, e.origin, e.actorType, e.targetType],
      () => ({
        hour: new Date(hour),
        event: e.event,
        result: e.result,
        origin: e.origin,
        actorType: e.actorType,
        targetType: e.targetType,
        n: 1,
      }),
      counts.hours,
    );
    const { actorId } = e;
    if (actorId === null) continue;
    const day = Math.floor(hour / DAY_MS) * DAY_MS;
    bump(
      actorDays,
      [day, actorId],
      () => ({ day: new Date(day), actorId, n: 1 }),
      counts.actorDays,
    );
  }
  return counts;
}
