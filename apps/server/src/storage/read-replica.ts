import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Connection } from './connection.js';
import { isDatabaseUnreachable, isReplayConflict } from './database-errors.js';
import type { Store } from './store.js';

/** While the replica is marked unreachable, at most one request a second asks it again. */
const PROBE_EVERY_MS = 1_000;

/** How long `upToNow` waits for the replica to replay what the primary has committed. */
const CATCH_UP_MS = 10_000;
const CATCH_UP_POLL_MS = 50;

/** Reads that may lag the primary's writes. */
export interface LaggingReads extends Store {
  /**
   * Runs `work` with this store's reads seeing at least every commit the primary had made when
   * called: for something that must be complete up to a moment (an export) rather than fresh.
   */
  upToNow<T>(work: () => Promise<T>): Promise<T>;
}

/** The primary's own store as the reads that may lag: they never do. */
export function primaryReads(store: Store): LaggingReads {
  return {
    connection: store.connection,
    inTransaction: () => store.inTransaction(),
    transaction: (work) => store.transaction(work),
    upToNow: (work) => work(),
  };
}

/** Reads served by a replica, and whether it answers. */
export interface ReadStore extends LaggingReads {
  /** Asks the replica now: `ok`, or `unavailable` (its reads are served by the primary). */
  health(): Promise<'ok' | 'unavailable'>;
}

/**
 * A store for reads that may lag the primary by the replica's replay delay. Statements and
 * transactions run on the replica. One that the replica cancels for a conflict with its replay
 * runs again on the primary; one that finds it unreachable too, and then the primary serves
 * these reads until the replica answers again (asked at most once a second, never by a
 * waiting request). So every transaction run through this store must only
 * read: it may run twice. Inside a transaction of the primary, the reads join it, since they
 * may have to see what it wrote. `upToNow` waits for the replica to catch up with the primary,
 * and reads the primary when it does not in time.
 */
export function createReadStore(
  primary: Store,
  replica: Store,
  ping: () => Promise<void>,
  logger: Pick<Logger, 'warn' | 'info'>,
): ReadStore {
  let reachable = true;
  let lastProbe = 0;
  /** Set in the call chain of an `upToNow` whose replica did not catch up: it reads the primary. */
  const onPrimary = new AsyncLocalStorage<true>();

  const markUnreachable = (error: unknown) => {
    lastProbe = Date.now();
    if (!reachable) return;
    reachable = false;
    const reason = error instanceof Error ? (error.cause ?? error) : error;
    logger.warn(
      { reason: reason instanceof Error ? reason.message : String(reason) },
      'read replica unreachable: the primary serves its reads until it answers again',
    );
  };
  const markReachable = () => {
    if (reachable) return;
    reachable = true;
    logger.info('read replica reachable again: it serves its reads');
  };
  const probe = () =>
    ping().then(
      () => {
        markReachable();
        return 'ok' as const;
      },
      (error: unknown) => {
        markUnreachable(error);
        return 'unavailable' as const;
      },
    );

  /** Whether this call chain should ask the replica (else the primary). */
  const onReplica = (): boolean => {
    if (primary.inTransaction() || onPrimary.getStore()) return false;
    if (!reachable && Date.now() - lastProbe >= PROBE_EVERY_MS) {
      lastProbe = Date.now();
      void probe();
    }
    return reachable;
  };

  /** Runs `read` on the replica; on the primary when the replica cannot be reached. */
  async function routed<T>(read: (store: Store) => Promise<T>): Promise<T> {
    if (!onReplica()) return read(primary);
    try {
      return await read(replica);
    } catch (error) {
      // The replica answers, but could not finish this read: the primary can.
      if (isReplayConflict(error)) return read(primary);
      // Not one stopped at its time bound: that read would be as slow on the primary.
      if (!isDatabaseUnreachable(error)) throw error;
      markUnreachable(error);
      return read(primary);
    }
  }

  /** Whether the replica has replayed everything the primary had committed when called. */
  const caughtUp = async (): Promise<boolean> => {
    const [now] = await primary.connection.sql<{ lsn: string }>(
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      // A server not in recovery is no standby behind anyone (DATABASE_READ_URL naming the primary).
      const [replayed] = await replica.connection.sql<{ done: boolean }>(
        'SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, NOT pg_is_in_recovery()) AS done',
        [now?.lsn],
      );
      if (replayed?.done) return true;
      if (Date.now() >= deadline) return false;
      await sleep(CATCH_UP_POLL_MS);
    }
  };

  const connection: Connection = {
    get db() {
      if (replica.inTransaction()) return replica.connection.db;
      return onReplica() ? replica.connection.db : primary.connection.db;
    },
    sql: (text, params) =>
      replica.inTransaction()
        ? replica.connection.sql(text, params)
        : routed((store) => store.connection.sql(text, params)),
  };

  return {
    connection,
    inTransaction: () => replica.inTransaction() || primary.inTransaction(),
    transaction: (work) =>
      replica.inTransaction()
        ? replica.transaction(work)
        : routed((store) => store.transaction(work)),
    health: probe,
    upToNow: async (work) => {
      const current = reachable && (await caughtUp().catch(() => false));
      return current ? work() : onPrimary.run(true, work);
    },
  };
}
