import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { commitsReportFailure } from './commit-outcomes.js';
import { lockDataDir } from './data-dir-lock.js';
import { driverTransactions } from './driver-transactions.js';
import { stopAfterWriteFailure } from './embedded-failure.js';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { applyMigrations, loadMigrations, type MigrationSession } from './migrations.js';
import { statementPerTurn } from './statement-turns.js';

export type DatabaseKind = 'embedded' | 'postgres';

/** One parameterized statement, straight to the driver: for the hot read paths. */
export type SqlQuery = <T>(text: string, params?: unknown[]) => Promise<T[]>;

export interface Database {
  readonly kind: DatabaseKind;
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
  /** Resolves when the database answers (on PostgreSQL, on a connection of its own). */
  ping(): Promise<void>;
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
   * Embedded only: called once when PGlite failed to write its files (disk full, I/O error)
   * or an error left it inside a critical section, with the count of critical sections it left
   * open (undefined: could not be read). From then on every statement, `ping` included, fails
   * at once with SQLSTATE 57P03 until a restart.
   */
  onEmbeddedFailure?: (error: Error, criticalSections: number | undefined) => void;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(options.url, options.poolSize ?? 10, options.applicationName)
    : openEmbedded(options.dataDir, options.onEmbeddedFailure ?? (() => {}));
}

async function openEmbedded(
  dataDir: string,
  onFailure: (error: Error, criticalSections: number | undefined) => void,
): Promise<Database> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const release = lockDataDir(join(dataDir, 'db.lock'));
  try {
    const pglite = await PGlite.create(join(dataDir, 'db'));
    const { failed } = stopAfterWriteFailure(pglite, onFailure);
    statementPerTurn(pglite);
    const transactions = driverTransactions(commitsReportFailure(pglite, new PrismaPGlite(pglite)));
    const prisma = new PrismaClient({ adapter: transactions.factory });
    const session: MigrationSession = {
      query: async <T>(sql: string, params?: unknown[]) =>
        (await pglite.query<T>(sql, params)).rows,
      exec: async (sql) => void (await pglite.exec(sql)),
    };
    return {
      kind: 'embedded',
      prisma,
      query: session.query,
      transaction: (work, options) =>
        transactions.run((queryOf) => prisma.$transaction((tx) => work(tx, queryOf()), options)),
      migrate: async () => applyMigrations(session, await loadMigrations()),
      ping: async () => void (await pglite.query('SELECT 1')),
      close: async () => {
        await prisma.$disconnect();
        // A failed instance is never called again: its shutdown checkpoint would spin too.
        if (!failed()) await pglite.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(
  url: string,
  poolSize: number,
  applicationName: string | undefined,
): Promise<Database> {
  // A server that accepts TCP but never answers must not hold a request for long.
  const pool = new pg.Pool({
    connectionString: url,
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
    kind: 'postgres',
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
