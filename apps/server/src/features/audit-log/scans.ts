import { ConcurrencyGate } from '../../lib/concurrency-gate.js';
import type { Store } from '../../storage/store.js';

/** Runs a read of the log whose cost grows with the log: a search, statistics, a list page. */
export type Scan = <T>(read: () => Promise<T>) => Promise<T>;

export interface ScanOptions {
  /** How many run at once on this instance. */
  concurrent: number;
  /** How many more wait for a turn, each for at most `waitMs`; beyond them, 503 at once. */
  queued: number;
  waitMs: number;
  /** One read's statements are stopped this long after it got its connection (503). */
  timeoutMs: number;
}

/**
 * One gate for every such read of this instance: together they hold at most `concurrent` of the
 * database's connections, for at most `timeoutMs` each, and the rest serve everything else.
 */
export function logScans(store: Pick<Store, 'readWithin'>, options: ScanOptions): Scan {
  const gate = new ConcurrencyGate({
    concurrent: options.concurrent,
    queued: options.queued,
    waitMs: options.waitMs,
    message:
      'This server is already running as many audit-log searches, statistics and lists as it runs at once; retry after the seconds in Retry-After. A narrower time range or query finishes sooner.',
    retryAfterSeconds: 2,
  });
  return (read) => gate.run(() => store.readWithin(options.timeoutMs, read));
}
