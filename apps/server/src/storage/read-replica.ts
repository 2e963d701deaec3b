import type { Logger } from 'pino';
import { Unavailable } from '../lib/errors.js';
import type { Connection } from './connection.js';
import type { Store } from './store.js';

/** While the replica is marked unreachable, at most one request a second asks it again. */
const PROBE_EVERY_MS = 1_000;

/** Reads that may lag the primary, and whether the replica serving them answers. */
export interface ReadStore extends Store {
  /** Asks the replica now: `ok`, or `unavailable` (its reads are served by the primary). */
  health(): Promise<'ok' | 'unavailable'>;
}

/**
 * A store for reads that may lag the primary by the replica's replay delay. Statements and
 * transactions run on the replica; one that finds it unreachable runs again on the primary,
 * and the primary serves these reads until the replica answers again (asked at most once a
 * second, never by a waiting request). So every transaction run through this store must only
 * read: it may run twice. Inside a transaction of the primary, the reads join it, since they
 * may have to see what it wrote.
 */
export function createReadStore(
  primary: Store,
  replica: Store,
  ping: () => Promise<void>,
  logger: Pick<Logger, 'warn' | 'info'>,
): ReadStore {
  let reachable = true;
  let lastProbe = 0;

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
    if (primary.inTransaction()) return false;
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
      if (!(error instanceof Unavailable)) throw error;
      markUnreachable(error);
      return read(primary);
    }
  }

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
  };
}
