import type { PGlite, Transaction } from '@electric-sql/pglite';
import { type AdapterFactory, onTransactionStart } from './transaction-hooks.js';

interface TransactionHandle {
  /** The driver's handle of the transaction (pglite-prisma-adapter names it so). */
  client?: unknown;
  commit(): Promise<void>;
}

/**
 * pglite-prisma-adapter reports a transaction committed as soon as it has asked PGlite to
 * commit: the promise of PGlite's `transaction()`, which settles once COMMIT has run, ends in
 * a `.catch` that drops the error. A COMMIT that failed (a deferred constraint, or the WAL
 * write of a full disk) was answered as done, and its work lost. This keeps each PGlite
 * transaction's own outcome and makes the adapter's `commit()` wait for it and throw its error.
 */
export function commitsReportFailure<F extends AdapterFactory>(pglite: PGlite, factory: F): F {
  const outcomes = new WeakMap<Transaction, { failure?: Promise<unknown> }>();
  const transaction = pglite.transaction.bind(pglite);
  pglite.transaction = <T>(callback: (tx: Transaction) => Promise<T>) => {
    const outcome: { failure?: Promise<unknown> } = {};
    const result = transaction((tx) => {
      outcomes.set(tx, outcome);
      // The adapter calls `rollback()` without awaiting it. Once the instance stopped after a
      // failed write (embedded-failure.ts), the ROLLBACK fails: an unhandled rejection, which
      // ended the process. The transaction's own outcome still reports the failure.
      const rollback = tx.rollback.bind(tx);
      tx.rollback = () => rollback().catch(() => {});
      return callback(tx);
    });
    // Settles to the error, never rejects: the adapter handles `result` itself.
    outcome.failure = result.then(
      () => undefined,
      (error: unknown) => error ?? new Error('The transaction failed.'),
    );
    return result;
  };

  return onTransactionStart<F, TransactionHandle>(factory, (handle) => {
    const commit = handle.commit.bind(handle);
    handle.commit = async () => {
      await commit();
      const outcome = outcomes.get(handle.client as Transaction);
      if (!outcome) throw new Error('The database adapter did not expose its transaction.');
      const failure = await outcome.failure;
      if (failure) throw failure;
    };
  });
}
