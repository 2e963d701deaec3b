export { freePort } from '@secadmin/embedded-postgres';
export { type ClickHouseHttp, startClickHouseHttp } from './clickhouse-http/index.js';
export { useMemoryTmpdir } from './memory-tmpdir.js';
export {
  type ReplicatedPostgres,
  startPostgres,
  startReplicatedPostgres,
  testPostgres,
} from './postgres.js';
export { startRedis, testRedis } from './redis.js';
export { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';
export type { OwnedServer, RunServer } from './servers.js';

declare module 'vitest' {
  /** What the global setups of `./global-setup/*` provide to tests. */
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
  }
}
