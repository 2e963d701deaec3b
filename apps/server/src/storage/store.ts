import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, SqlQuery } from '@secadmin/db';
import { type Connection, transactionConnection } from './connection.js';
import { mapDatabaseErrors } from './database-errors.js';

/**
 * The storage of the service: a connection and a transaction runner. Each feature builds its
 * own repositories once, on `connection`; they join whatever transaction is open in the current
 * async call chain of this store (a repository built on another store's connection does not).
 */
export interface Store {
  /** The connection of the transaction this async call chain runs in, else the database's. */
  readonly connection: Connection;
  /**
   * Runs `work` in one transaction: everything it writes commits together or not at all.
   * Called inside another transaction (of this async call chain), it joins it as a savepoint:
   * a failure of `work` undoes only what `work` wrote, and the outer transaction decides.
   * While `work` runs, every repository built on `connection` uses the transaction.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Whether this async call chain runs inside a transaction of the store. */
  inTransaction(): boolean;
}

/**
 * Prisma's defaults (2 s to get a connection, 5 s to finish) fail requests that merely queue:
 * 100 concurrent updates of one row wait in turn for its lock while holding the pool's
 * connections. Generous bounds, still well under the clients' timeouts.
 */
const TIMEOUTS = { maxWait: 10_000, timeout: 20_000 };

interface OpenTransaction {
  connection: Connection;
  savepoints: number;
}

/**
 * The only way services reach the database. A statement that cannot reach it throws
 * `Unavailable` (storage/database-errors.ts).
 */
export function createStore(database: Database): Store {
  const db = mapDatabaseErrors(database);
  // The transaction this async call chain runs in: a statement issued through the store while
  // one is open runs in it, so it sees what the transaction wrote.
  const open = new AsyncLocalStorage<OpenTransaction>();
  const connection: Connection = {
    get db() {
      return open.getStore()?.connection.db ?? db.prisma;
    },
    sql: (text, params) => (open.getStore()?.connection.sql ?? db.query)(text, params),
  };

  async function inSavepoint<T>(outer: OpenTransaction, work: () => Promise<T>): Promise<T> {
    const name = `nested_${++outer.savepoints}`;
    await outer.connection.sql(`SAVEPOINT ${name}`);
    try {
      const result = await work();
      await outer.connection.sql(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await outer.connection.sql(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  function runTransaction<T>(work: () => Promise<T>, timeouts: typeof TIMEOUTS): Promise<T> {
    return db.transaction((tx, sql) => {
      const transaction = {
        connection: transactionConnection(tx, sql),
        savepoints: 0,
      };
      return open.run(transaction, work);
    }, timeouts);
  }

  return {
    connection,
    inTransaction: () => open.getStore() !== undefined,
    transaction: (work) => {
      const outer = open.getStore();
      if (outer) return inSavepoint(outer, work);
      return runTransaction(work, TIMEOUTS);
    },
  };
}
