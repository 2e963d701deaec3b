import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database } from '@secadmin/db';
import { ApiKeysRepository } from '../features/api-keys/repository.js';
import { IdempotencyRepository } from '../features/idempotency/repository.js';
import { PoliciesRepository } from '../features/policies/repository.js';
import { UsersRepository } from '../features/users/repository.js';
import { type Connection, transactionConnection } from './connection.js';
import { StateVersionsRepository } from './state-versions-repository.js';

/** Every table's repository, on one connection (the database's, or a transaction's). */
export interface Repositories {
  users: UsersRepository;
  policies: PoliciesRepository;
  apiKeys: ApiKeysRepository;
  stateVersions: StateVersionsRepository;
  idempotency: IdempotencyRepository;
}

export interface Store extends Repositories {
  /** The connection of the transaction this async call chain runs in, else the database's. */
  readonly connection: Connection;
  /**
   * Runs `work` in one transaction: everything it writes commits together or not at all.
   * Called inside another transaction (of this async call chain), it joins it as a savepoint:
   * a failure of `work` undoes only what `work` wrote, and the outer transaction decides.
   * While `work` runs, the store's own repositories also use the transaction.
   */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /** Whether this async call chain runs inside a transaction of the store. */
  inTransaction(): boolean;
}

function repositoriesOn(connection: Connection): Repositories {
  return {
    users: new UsersRepository(connection),
    policies: new PoliciesRepository(connection),
    apiKeys: new ApiKeysRepository(connection),
    stateVersions: new StateVersionsRepository(connection),
    idempotency: new IdempotencyRepository(connection),
  };
}

/**
 * Prisma's defaults (2 s to get a connection, 5 s to finish) fail requests that merely queue:
 * 100 concurrent updates of one row wait in turn for its lock while holding the pool's
 * connections. Generous bounds, still well under the clients' timeouts.
 */
const TIMEOUTS = { maxWait: 10_000, timeout: 20_000 };

interface OpenTransaction {
  connection: Connection;
  repos: Repositories;
  savepoints: number;
}

/** The storage of the service: the only way services reach the database. */
export function createRepositories(db: Database): Store {
  // The transaction this async call chain runs in: a statement issued through the store while
  // one is open must run in it (the embedded database would wait for it forever otherwise).
  const open = new AsyncLocalStorage<OpenTransaction>();
  const ambient: Connection = {
    get db() {
      return open.getStore()?.connection.db ?? db.prisma;
    },
    sql: (text, params) => (open.getStore()?.connection.sql ?? db.query)(text, params),
  };

  async function inSavepoint<T>(
    outer: OpenTransaction,
    work: (repos: Repositories) => Promise<T>,
  ): Promise<T> {
    const name = `nested_${++outer.savepoints}`;
    await outer.connection.sql(`SAVEPOINT ${name}`);
    try {
      const result = await work(outer.repos);
      await outer.connection.sql(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await outer.connection.sql(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  return {
    ...repositoriesOn(ambient),
    connection: ambient,
    inTransaction: () => open.getStore() !== undefined,
    transaction: (work) => {
      const outer = open.getStore();
      if (outer) return inSavepoint(outer, work);
      return db.transaction((tx, sql) => {
        const connection = transactionConnection(tx, sql);
        const transaction = { connection, repos: repositoriesOn(connection), savepoints: 0 };
        return open.run(transaction, () => work(transaction.repos));
      }, TIMEOUTS);
    },
  };
}
