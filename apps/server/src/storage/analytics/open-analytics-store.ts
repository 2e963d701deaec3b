import { availableParallelism } from 'node:os';
import { type AnalyticsStore, withStoreErrors } from './analytics-store.js';
import { openClickHouseServer } from './clickhouse-server.js';
import { openEmbeddedClickHouse } from './embedded-clickhouse.js';

export interface AnalyticsStoreOptions {
  url: string | undefined;
  cluster: string | undefined;
  embeddedPath: string;
  embeddedDatabase: string;
}

/** The most memory one query of the embedded engine may take before it is stopped. */
const EMBEDDED_QUERY_MEMORY_BYTES = 512 * 1024 * 1024;

/** A ClickHouse server when `url` names one, else the engine embedded in this process. */
export async function openAnalyticsStore(options: AnalyticsStoreOptions): Promise<AnalyticsStore> {
  if (options.url)
    return withStoreErrors(
      openClickHouseServer({
        url: options.url,
        cluster: options.cluster,
        requestTimeoutMs: 30_000,
      }),
    );
  return withStoreErrors(
    await openEmbeddedClickHouse({
      path: options.embeddedPath,
      database: options.embeddedDatabase,
      maxThreads: availableParallelism(),
      maxQueryMemoryBytes: EMBEDDED_QUERY_MEMORY_BYTES,
    }),
  );
}
