export { DataDirLockedError } from './data-dir-lock.js';
export {
  type Database,
  type DatabaseKind,
  type OpenDatabaseOptions,
  openDatabase,
  type SqlQuery,
} from './database.js';
export { TransactionEndedError } from './driver-transactions.js';
export * from './generated/prisma/client.js';
export { applyMigrations, loadMigrations, type Migration } from './migrations.js';
