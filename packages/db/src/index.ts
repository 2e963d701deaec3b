export { clusterHomeOf, REACHABLE_ROOT } from './cluster-home.js';
export {
  clusterUser,
  embeddedPaths,
  letServerReach,
  moveCluster,
  removeClusterHome,
} from './cluster-place.js';
export { DataDirLockedError, lockDataDir } from './data-dir-lock.js';
export {
  type Database,
  type OpenDatabaseOptions,
  openDatabase,
  type SqlQuery,
} from './database.js';
export { TransactionEndedError } from './driver-transactions.js';
export {
  type EmbeddedPostgres,
  type EmbeddedPostgresLog,
  startEmbeddedPostgres,
} from './embedded-postgres.js';
export * from './generated/prisma/client.js';
export { stopLeftoverPostmaster } from './leftover-postmaster.js';
export {
  LegacyDataDirError,
  legacyCluster,
  MIGRATE_LEGACY_COMMAND,
} from './legacy-data-dir.js';
export {
  applyMigrations,
  loadMigrations,
  type Migration,
  type MigrationSession,
} from './migrations.js';
