import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { embeddedPaths } from './cluster-place.js';
import { lockDataDir } from './data-dir-lock.js';
import { driverTransactions } from './driver-transactions.js';
import { type EmbeddedPostgresLog, startEmbeddedPostgres } from './embedded-postgres.js';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { refuseLegacyDataDir } from './legacy-data-dir.js';
import { applyMigrations, loadMigrations, type MigrationSession } from './migrations.js';
import { ScramOnlyClient } from './scram-only-client.js';

/** One parameterized statement, straight to the driver: for the hot read paths. */
export type SqlQuery = <T>(text: string, params?: unknown[]) => Promise<T[]>;

export interface Database {
  readonly prisma: PrismaClient;
  /**
   * Bypasses Prisma (far less overhead per statement: bench/results/findings.md): only for single
   * read statements outside transactions, where every request pays for it.
   */
  readonly query: SqlQuery;
  /**
   * Prisma's interactive transaction; `query` runs plain SQL in it straight through the driver,
   * on the transaction's connection (see `driverTransactions`).
   */
  transaction<T>(
    work: (tx: Prisma.TransactionClient, query: SqlQuery) => Promise<T>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<T>;
  /** Applies pending migrations; returns the names applied now. */
  migrate(): Promise<string[]>;
  /** Resolves when the database answers, on a connection of its own. */
  ping(): Promise<void>;
  /** Closes the connections; the embedded server is stopped too (fast shutdown). */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`; unset means the embedded database under `dataDir`. */
  url?: string | undefined;
  dataDir: string;
  /** Connections in the PostgreSQL pool (default 10). */
  poolSize?: number;
  /** PostgreSQL only: the `application_name` its connections show in `pg_stat_activity`. */
  applicationName?: string;
  /**
   * Embedded only: where its server's events go (where its cluster is, it stopped and is started
   * again); a pino logger fits. Unset: they are written to stderr.
   */
  log?: EmbeddedPostgresLog;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(options.url, options.poolSize ?? 10, options.applicationName, pg.Client)
    : openEmbedded(options.dataDir, options.poolSize ?? 10, options.log ?? stderrLog);
}

const stderrLog: EmbeddedPostgresLog = {
  info: (details, message) => console.error(message, details),
  warn: (details, message) => console.error(message, details),
  error: (details, message) => console.error(message, details),
};

/**
 * The data dir's own PostgreSQL server (`<data dir>/postgres`), started under the data dir's
 * lock and reached as any server; `close` stops it.
 */
async function openEmbedded(
  dataDir: string,
  poolSize: number,
  log: EmbeddedPostgresLog,
): Promise<Database> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const release = lockDataDir(join(dataDir, 'db.lock'));
  try {
    // Closed to everyone, even when the operator created it with a looser mode; as root, the
    // embedded server's user may then be let through (`letServerReach`).
    await chmod(dataDir, 0o700);
    refuseLegacyDataDir(dataDir, embeddedPaths(dataDir).cluster);
    const server = await startEmbeddedPostgres(dataDir, log);
    try {
      const db = await openPostgres(server.url, poolSize, undefined, ScramOnlyClient);
      return {
        ...db,
        close: async () => {
          await db.close();
          await server.stop();
          release();
        },
      };
    } catch (error) {
      await server.stop();
      throw error;
    }
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(
  url: string,
  poolSize: number,
  applicationName: string | undefined,
  Client: typeof pg.Client,
): Promise<Database> {
  // A server that accepts TCP but never answers must not hold a request for long.
  const pool = new pg.Pool({
    connectionString: url,
    Client,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    ...(applicationName ? { application_name: applicationName } : {}),
    // Compiling a statement with JIT took longer than running it: 1.4 s of 1.6 s for a batch of
    // the sealer's on 100,000 entries. Set before the pool hands the connection out.
    onConnect: (client) => client.query('SET jit = off'),
  });
  // Readiness asks on a connection of its own: it must not wait behind requests for one of the
  // pool's, which a burst of slow reads may hold for seconds.
  const pingPool = new pg.Pool({
    connectionString: url,
    Client,
    max: 1,
    connectionTimeoutMillis: 5_000,
    query_timeout: 5_000,
  });
  // An idle client's error (e.g. the server restarting) must not crash the process.
  pool.on('error', () => {});

  pingPool.on('error', () => {});
  const transactions = driverTransactions(new PrismaPg(pool));
  const prisma = new PrismaClient({ adapter: transactions.factory });
  return {
    prisma,
    query: async <T>(text: string, params?: unknown[]) =>
      (await pool.query(text, params)).rows as T[],
    transaction: (work, options) =>
      transactions.run((queryOf) => prisma.$transaction((tx) => work(tx, queryOf()), options)),
    migrate: async () => {
      const client = await pool.connect();
      try {
        const session: MigrationSession = {
          query: async <T>(sql: string, params?: unknown[]) =>
            (await client.query(sql, params)).rows as T[],
          exec: async (sql) => void (await client.query(sql)),
        };
        return await applyMigrations(session, await loadMigrations());
      } finally {
        client.release();
      }
    },
    ping: async () => void (await pingPool.query('SELECT 1')),
    close: async () => {
      await prisma.$disconnect();
      await Promise.all([pool.end().catch(() => {}), pingPool.end().catch(() => {})]);
    },
  };
}
