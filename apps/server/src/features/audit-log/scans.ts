import { ConcurrencyGate } from '../../lib/concurrency-gate.js';

/** Runs a read of the log whose cost grows with the log, for the principal `caller`. */
export type Scan = <T>(caller: string, read: () => Promise<T>) => Promise<T>;

export interface ScanOptions {
  /** How many run at once on this instance. */
  concurrent: number;
  /** How many more wait for a turn, each for at most `waitMs`; beyond them, 503 at once. */
  queued: number;
  waitMs: number;
  /** A search or statistics statement is stopped in the analytics store after this long (503). */
  timeoutMs: number;
  /** How many of one principal's run at once, and how many more of them wait (429 beyond). */
  perPrincipal: { running: number; waiting: number };
}

export interface LogScans {
  /**
   * A search, statistics or list page, admitted by the gate (a search or statistics is stopped
   * in the analytics store at its bound; a list page is one statement, cheap unless its filter
   * matches few entries).
   */
  admitted: Scan;
}

/**
 * One gate for every such read of this instance: together they hold at most `concurrent` of the
 * database's connections, and the rest serve everything else. One principal runs at most
 * `perPrincipal.running` at once and has at most `perPrincipal.waiting` more waiting, beyond
 * which it gets 429s; a freed turn goes first to a principal below its share. So a key that
 * floods the gate holds neither every turn nor the queue (the analytics store runs statements
 * one after another: each turn a flood holds delays every other principal's search).
 */
export function logScans(options: ScanOptions): LogScans {
  const gate = new ConcurrencyGate({
    concurrent: options.concurrent,
    queued: options.queued,
    waitMs: options.waitMs,
    message:
      'This server is already running as many audit-log searches, statistics and lists as it runs at once; retry after the seconds in Retry-After. A narrower time range or query finishes sooner.',
    retryAfterSeconds: 2,
    perCaller: {
      ...options.perPrincipal,
      message: `This principal already has ${options.perPrincipal.running + options.perPrincipal.waiting} audit-log searches, statistics or lists running or waiting on this server; send the next one when one of them has answered (retry after the seconds in Retry-After).`,
    },
  });
  return {
    admitted: (caller, read) => gate.run(read, caller),
  };
}
