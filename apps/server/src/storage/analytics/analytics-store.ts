import { Unavailable } from '../../lib/errors.js';

/** Values bound to a statement's `{name:Type}` placeholders (by the engine, never spliced in). */
export type QueryParams = Record<string, unknown>;

/**
 * A ClickHouse database that the service reads and writes with the same SQL, whichever engine
 * answers: the embedded one (chdb, in this process) or a server or cluster (HTTP).
 */
export interface AnalyticsStore {
  /** `embedded` (chdb, data in the data dir) or `server` (`CLICKHOUSE_URL`). */
  readonly kind: 'embedded' | 'server';
  /** The database the service's tables live in. */
  readonly database: string;
  /** `CLICKHOUSE_CLUSTER`: DDL runs `ON CLUSTER` it and tables are replicated. */
  readonly cluster: string | undefined;
  /** Rows of a SELECT, each as ClickHouse's JSON output gives it (64-bit integers as strings). */
  query<T>(sql: string, params?: QueryParams): Promise<T[]>;
  /** A statement that returns no rows (DDL, DELETE, ALTER). */
  command(sql: string, params?: QueryParams): Promise<void>;
  /**
   * Inserts rows (objects keyed by column) into a table of the database, as one block;
   * `dedupToken` names the block, so that the same block sent again is not inserted twice.
   */
  insert(table: string, rows: readonly object[], dedupToken?: string): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A ClickHouse error the service answers as a timeout (503) rather than a failure. */
export function isTimeout(error: unknown): boolean {
  const text = error instanceof Error ? error.message : String(error);
  return /\bTIMEOUT_EXCEEDED\b|Code: 159\b|Timeout exceeded/.test(text);
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** A store that could not be reached, dropped the connection, or did not answer in time. */
function isUnreachable(error: unknown): boolean {
  // The client wraps the socket's error: its code may be on a cause.
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    if (
      typeof message === 'string' &&
      /socket hang up|^Timeout error|store is closed/.test(message)
    )
      return true;
    e = cause;
  }
  return false;
}

/** What a caller sees of a store that is down or stopped a statement at its bound: a 503. */
function unavailable(error: unknown): unknown {
  if (error instanceof Unavailable) return error;
  if (isTimeout(error))
    return new Unavailable(
      'The search store stopped this request at its time bound; ask for less at once (a narrower time range or query), or retry later.',
      1,
      { cause: error },
    );
  if (isUnreachable(error))
    return new Unavailable('The search store is unreachable; retry shortly.', 1, {
      cause: error,
    });
  if (error instanceof Error && /\bUNKNOWN_TABLE\b|Code: 60\b/.test(error.message))
    return new Unavailable(
      'The search store lost its data; it is being filled again from the audit log. GET /v1/logs/search-index shows its progress.',
      5,
      { cause: error },
    );
  return error;
}

const rethrow = (error: unknown): never => {
  throw unavailable(error);
};

/**
 * The store as services see it: a statement it cannot answer (unreachable, closed, stopped at its
 * time bound) throws `Unavailable`, every other error passes unchanged.
 */
export function withStoreErrors(store: AnalyticsStore): AnalyticsStore {
  return {
    kind: store.kind,
    database: store.database,
    cluster: store.cluster,
    query: <T>(sql: string, params?: QueryParams) => store.query<T>(sql, params).catch(rethrow),
    command: (sql, params) => store.command(sql, params).catch(rethrow),
    insert: (table, rows, dedupToken) => store.insert(table, rows, dedupToken).catch(rethrow),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

/** Lines of ClickHouse's JSONEachRow output as objects. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  for (const line of text.split('\n')) if (line.length > 0) rows.push(JSON.parse(line) as T);
  return rows;
}

/** Rows as JSONEachRow input. */
export function jsonEachRow(rows: readonly object[]): string {
  let text = '';
  for (const row of rows) text += `${JSON.stringify(row)}\n`;
  return text;
}
