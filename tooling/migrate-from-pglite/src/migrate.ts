import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import {
  applyMigrations,
  clusterUser,
  type EmbeddedPostgresLog,
  embeddedPaths,
  legacyCluster,
  letServerReach,
  loadMigrations,
  lockDataDir,
  type MigrationSession,
  moveCluster,
  removeClusterHome,
  startEmbeddedPostgres,
} from '@secadmin/db';
import pg from 'pg';
import { pgliteSide, postgresSide } from './sides.js';
import { copyPartitions, copyRows, copySequences } from './tables.js';

export interface MigrationReport {
  /** Rows copied, per table. */
  rows: Map<string, number>;
  /** Migrations newer than the PGlite database, applied after the copy. */
  applied: string[];
  /** Where the PGlite database now is (renamed, never deleted). */
  keptAside: string;
  /**
   * Where the new cluster is: `<data dir>/postgres`, or, as root when PostgreSQL's user cannot
   * reach the data dir, the home under /var/lib/secadmin that it links to.
   */
  cluster: string;
}

const sessionOf = (client: pg.Client): MigrationSession => ({
  query: async <T>(sql: string, params?: unknown[]) =>
    (await client.query(sql, params)).rows as T[],
  exec: async (sql) => void (await client.query(sql)),
});

/** A path next to `path` that does not exist yet: `<path>.<suffix>`, numbered if taken. */
function freeName(path: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const candidate = `${path}.${suffix}${n === 1 ? '' : `-${n}`}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/**
 * Moves the PGlite database of `dataDir` (`<data dir>/db`) into a new embedded PostgreSQL
 * cluster (`<data dir>/postgres`): the cluster is built aside, gets the migrations the PGlite
 * database had, every row as it is and the sequences where they were, then the newer
 * migrations; only then is it moved into place and the PGlite directory renamed. A run that
 * fails leaves the data dir as it was (the service keeps refusing it), and can run again.
 */
export async function migrateFromPglite(
  dataDir: string,
  log: Omit<EmbeddedPostgresLog, 'info'> & { info(message: string): void },
): Promise<MigrationReport> {
  const source = legacyCluster(dataDir);
  const { cluster } = embeddedPaths(dataDir);
  if (!existsSync(join(source, 'PG_VERSION')))
    throw new Error(`${dataDir} has no PGlite database (no ${source}): nothing to migrate.`);
  if (existsSync(cluster))
    throw new Error(
      `${dataDir} has an embedded PostgreSQL already (${cluster}): move it away first if the PGlite database in ${source} is the one to keep.`,
    );
  const release = lockDataDir(join(dataDir, 'db.lock'));
  const staging = join(dataDir, 'migrate-from-pglite');
  try {
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { mode: 0o700 });
    // The staging cluster goes where the data dir's will: in it if PostgreSQL's user reaches it.
    await letServerReach(dataDir, await clusterUser(dataDir));
    const pglite = await PGlite.create(source);
    const server = await startEmbeddedPostgres(staging, {
      ...log,
      info: (_details, message) => log.info(message),
    });
    const client = new pg.Client({ connectionString: server.url });
    let report: Omit<MigrationReport, 'keptAside' | 'cluster'>;
    try {
      await client.connect();
      report = await copyInto(pglite, client, log);
    } finally {
      await client.end().catch(() => {});
      await server.stop();
      await pglite.close();
    }
    const keptAside = freeName(source, 'pglite');
    await rename(source, keptAside);
    const cluster = await moveCluster(staging, dataDir);
    await rm(staging, { recursive: true, force: true });
    return { ...report, keptAside, cluster };
  } catch (error) {
    await removeClusterHome(staging);
    await rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    release();
  }
}

async function copyInto(
  pglite: PGlite,
  client: pg.Client,
  log: { info(message: string): void },
): Promise<Omit<MigrationReport, 'keptAside' | 'cluster'>> {
  const from = pgliteSide(pglite);
  const to = postgresSide(client);
  const done = new Set(
    (
      await from.query<{ name: string }>(
        'SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      )
    ).map((r) => r.name),
  );
  const migrations = await loadMigrations();
  const unknown = [...done].filter((name) => !migrations.some((m) => m.name === name));
  if (unknown.length > 0)
    throw new Error(
      `the PGlite database has migrations this version does not know (${unknown.join(', ')}): run the migration with the secadmin version that wrote it, or a newer one.`,
    );
  await applyMigrations(
    sessionOf(client),
    migrations.filter((m) => done.has(m.name)),
  );
  log.info(`schema as the PGlite database had it: ${done.size} migrations`);
  await client.query('BEGIN');
  let rows: Map<string, number>;
  try {
    await copyPartitions(from, to);
    rows = await copyRows(from, to);
    await copySequences(from, to);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  for (const [table, count] of rows) if (count > 0) log.info(`${table}: ${count} rows`);
  const applied = await applyMigrations(sessionOf(client), migrations);
  if (applied.length > 0) log.info(`newer migrations applied: ${applied.join(', ')}`);
  await client.query('ANALYZE');
  return { rows, applied };
}
