import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { AnalyticsStore, QueryParams } from './analytics-store.js';

export interface ClickHouseServerOptions {
  /** `http(s)://user:password@host:8123/db`: the path names the database. */
  url: string;
  cluster: string | undefined;
  /** The longest one statement may run, in the engine and on the wire. */
  requestTimeoutMs: number;
}

/** A database or table name as a ClickHouse identifier. */
const identifier = (name: string) => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;

/** The database a `CLICKHOUSE_URL` names (its path), `default` without one. */
export function databaseOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\/+|\/+$/g, ''));
  return name === '' ? 'default' : name;
}

/**
 * A ClickHouse server or cluster through the official client. The URL's credentials stay in the
 * client: no error or log line this module writes carries the URL.
 */
export function openClickHouseServer(options: ClickHouseServerOptions): AnalyticsStore {
  const url = new URL(options.url);
  const database = databaseOf(options.url);
  const username = decodeURIComponent(url.username) || 'default';
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  url.pathname = '/';
  const client: ClickHouseClient = createClient({
    url: url.toString(),
    username,
    password,
    // The database is created by the service's first statement; it cannot be the session's yet.
    request_timeout: options.requestTimeoutMs,
    compression: { request: false, response: false },
    // Failures reach the service as errors (503s, the feeder's log line once): the client's own
    // logger would write each one to stderr again, outside the service's log.
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    kind: 'server',
    database,
    cluster: options.cluster,
    query: async <T>(sql: string, params?: QueryParams) => {
      const result = await client.query({
        query: sql,
        format: 'JSONEachRow',
        ...(params ? { query_params: params } : {}),
      });
      return result.json<T>();
    },
    command: async (sql, params) => {
      await client.command({ query: sql, ...(params ? { query_params: params } : {}) });
    },
    insert: async (table, rows, dedupToken) => {
      if (rows.length === 0) return;
      await client.insert({
        // The client writes the name into its INSERT as it is: quoted here, as the DDL quotes it.
        table: `${identifier(database)}.${identifier(table)}`,
        values: rows as object[],
        format: 'JSONEachRow',
        ...(dedupToken ? { clickhouse_settings: { insert_deduplication_token: dedupToken } } : {}),
      });
    },
    ping: async () => (await client.ping()).success,
    close: () => client.close(),
  };
}
