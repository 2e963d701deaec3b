import { ConcurrencyGate } from '../../lib/concurrency-gate.js';
import type { Store } from '../../storage/store.js';

/** Runs a read of the log whose cost grows with the log. */
export type Scan = <T>(read: () => Promise<T>) => Promise<T>;

export interface ScanOptions {
  /** How many run at once on this instance. */
  concurrent: number;
  /** How many more wait for a turn, each for at most `waitMs`; beyond them, 503 at once. */
  queued: number;
  waitMs: number;
  /** A bounded read's statements are stopped this long after it got its connection (503). */
  timeoutMs: number;
}

export interface LogScans {
  /** A search or statistics: admitted by the gate, and stopped in the database at the bound. */
  bounded: Scan;
  /**
   * A list page: admitted by the gate only. It is one statement, cheap unless its filter matches
   * few entries; the transaction a bound needs would cost every page more than the page itself.
   */
  admitted: Scan;
}

/**
 * One gate for every such read of this instance: together they hold at most `concurrent` of the
 * database's connections, and the rest serve everything else.
 */
export function logScans(store: Pick<Store, 'readWithin'>, options: ScanOptions): LogScans {
  const gate = new ConcurrencyGate({
    concurrent: options.concurrent,
    queued: options.queued,
    waitMs: options.waitMs,
    message:
      'This server is already running as many audit-log searches, statistics and lists as it runs at once; retry after the seconds in Retry-After. A narrower time range or query finishes sooner.',
    retryAfterSeconds: 2,
  });
  return {
    bounded: (read) => gate.run(() => store.readWithin(options.timeoutMs, read)),
    admitted: (read) => gate.run(read),
  };
}
