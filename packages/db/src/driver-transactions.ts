import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlQuery } from './database.js';
import { type AdapterFactory, onTransactionStart } from './transaction-hooks.js';

/** What the driver's transaction handle answers: pg's pool client. */
interface DriverQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Where `startTransaction` leaves the driver handle of the transaction it opened. */
interface Opening {
  driver?: DriverQueryable;
  /** Prisma committed or rolled the transaction back (on its timeout, too). */
  ended?: boolean;
}

interface TransactionHandle {
  client?: DriverQueryable;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  executeRaw(query: { sql: string }): Promise<number>;
}

/** Prisma ends a pg transaction by sending these itself, then calls `commit`/`rollback`. */
const ENDING = /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;

/**
 * A statement sent after its transaction ended. Prisma rolls a transaction back when it runs
 * past its timeout, but the work goes on: its next statements on the driver connection would
 * run outside any transaction, each committing alone (part of an ingest batch kept, while the
 * request failed), or inside another request's transaction once the connection is pooled again.
 */
export class TransactionEndedError extends Error {
  readonly code = 'TransactionEnded';
  constructor() {
    super('The transaction ended before its work did (it ran past its time limit).');
  }
}

/**
 * Plain SQL inside a Prisma transaction, on the transaction's own driver connection. Through
 * `$queryRawUnsafe`, Prisma's debug module keeps the parameters of its last 100 calls alive,
 * debugging on or not: an ingest batch stayed reachable long after its request. Wraps the
 * adapter factory so the transaction it starts hands its driver handle to the caller.
 */
export function driverTransactions<F extends AdapterFactory>(factory: F) {
  const opening = new AsyncLocalStorage<Opening>();
  onTransactionStart<F, TransactionHandle>(factory, (transaction) => {
    const slot = opening.getStore();
    if (!slot) return;
    slot.driver = transaction.client;
    // Marked as soon as the end is asked for: a statement of the work queued behind the
    // ROLLBACK of a timeout would otherwise run after it, on a connection back in the pool.
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    const executeRaw = transaction.executeRaw.bind(transaction);
    transaction.commit = () => {
      slot.ended = true;
      return commit();
    };
    transaction.rollback = () => {
      slot.ended = true;
      return rollback();
    };
    transaction.executeRaw = (query) => {
      if (ENDING.test(query.sql)) slot.ended = true;
      return executeRaw(query);
    };
  });
  return {
    factory,
    /**
     * Runs `open` (which starts one Prisma transaction and calls `work` in it) and gives `work`
     * the driver's query on that transaction's connection.
     */
    run<T>(open: (work: () => SqlQuery) => Promise<T>): Promise<T> {
      const slot: Opening = {};
      return opening.run(slot, () =>
        open(() => {
          const driver = slot.driver;
          if (typeof driver?.query !== 'function')
            throw new Error('The database adapter did not expose its transaction connection.');
          return async <R>(text: string, params?: unknown[]) => {
            if (slot.ended) throw new TransactionEndedError();
            return (await driver.query(text, params)).rows as R[];
          };
        }),
      );
    },
  };
}
