import type { Database } from '@secadmin/db';
import { ApiKeysRepository } from '../features/api-keys/repository.js';
import { ChainRepository } from '../features/audit-log/chain/repository.js';
import { SigningKeysRepository } from '../features/audit-log/chain/signing-keys-repository.js';
import { ExportsRepository } from '../features/audit-log/exports/repository.js';
import { PartitionsRepository } from '../features/audit-log/partitions/repository.js';
import { LogsRepository } from '../features/audit-log/repository.js';
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
  logs: LogsRepository;
  chain: ChainRepository;
  signingKeys: SigningKeysRepository;
  partitions: PartitionsRepository;
  exports: ExportsRepository;
  stateVersions: StateVersionsRepository;
  idempotency: IdempotencyRepository;
}

export interface Store extends Repositories {
  /** Runs `work` in one transaction: everything it writes commits together or not at all. */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
}

function repositoriesOn(connection: Connection): Repositories {
  return {
    users: new UsersRepository(connection),
    policies: new PoliciesRepository(connection),
    apiKeys: new ApiKeysRepository(connection),
    logs: new LogsRepository(connection),
    chain: new ChainRepository(connection),
    signingKeys: new SigningKeysRepository(connection),
    partitions: new PartitionsRepository(connection),
    exports: new ExportsRepository(connection),
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

/** The storage of the service: the only way services reach the database. */
export function createRepositories(db: Database): Store {
  return {
    ...repositoriesOn({ db: db.prisma, sql: db.query }),
    transaction: (work) =>
      db.prisma.$transaction((tx) => work(repositoriesOn(transactionConnection(tx))), TIMEOUTS),
  };
}
