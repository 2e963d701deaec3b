import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Session } from 'chdb';
import {
  type AnalyticsStore,
  jsonEachRow,
  parseJsonEachRow,
  type QueryParams,
} from './analytics-store.js';

export interface EmbeddedClickHouseOptions {
  /** The engine's data directory (`<data dir>/clickhouse`). */
  path: string;
  database: string;
  /** Threads one query may use. */
  maxThreads: number;
  /** Bytes one query may hold in memory before the engine stops it. */
  maxQueryMemoryBytes: number;
}

/**
 * The engine loads once per process and keeps one data directory for its life (chdb allows no
 * second), so servers of one process (tests) share the session and keep a database each.
 */
let shared: { path: string; session: Session; users: number } | undefined;

function openSession(options: EmbeddedClickHouseOptions): Session {
  const path = resolve(options.path);
  if (shared && shared.path !== path)
    throw new Error(
      `the embedded ClickHouse of this process already keeps its data in ${shared.path}; a second data directory (${path}) cannot be opened in the same process`,
    );
  if (!shared) {
    const session = new Session(path, {
      connectionArgs: [
        `--max_threads=${options.maxThreads}`,
        `--max_memory_usage=${options.maxQueryMemoryBytes}`,
        // Tables load before the first query rather than behind it.
        '--async_load_databases=0',
      ],
    });
    shared = { path, session, users: 0 };
  }
  shared.users++;
  return shared.session;
}

function closeSession(): void {
  if (!shared) return;
  shared.users--;
  if (shared.users > 0) return;
  shared.session.close();
  shared = undefined;
}

/** ClickHouse inside this process (chdb): every statement runs off the event loop. */
export async function openEmbeddedClickHouse(
  options: EmbeddedClickHouseOptions,
): Promise<AnalyticsStore> {
  await mkdir(options.path, { recursive: true, mode: 0o700 });
  const session = openSession(options);
  let open = true;
  const run = async (sql: string, params: QueryParams = {}): Promise<string> => {
    if (!open) throw new Error('the analytics store is closed');
    const result = await session.queryBindAsync(sql, params, { format: 'JSONEachRow' });
    return result.text();
  };
  return {
    kind: 'embedded',
    database: options.database,
    cluster: undefined,
    query: async <T>(sql: string, params?: QueryParams) =>
      parseJsonEachRow<T>(await run(sql, params)),
    command: async (sql, params) => {
      await run(sql, params);
    },
    insert: async (table, rows, dedupToken) => {
      if (rows.length === 0) return;
      await session.insert({
        table: `${options.database}.${table}`,
        values: Buffer.from(jsonEachRow(rows)),
        format: 'JSONEachRow',
        ...(dedupToken ? { settings: { insert_deduplication_token: dedupToken } } : {}),
      });
    },
    ping: async () => {
      try {
        await run('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      if (!open) return;
      open = false;
      closeSession();
    },
  };
}
