import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Where `prisma/migrations` is, from `src/` and from `dist/` alike. */
const migrationsDir = fileURLToPath(new URL('../prisma/migrations/', import.meta.url));

export async function loadMigrations(dir = migrationsDir): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(`${dir}/${name}/migration.sql`, 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** What applying migrations needs from a connection: one session, multi-statement SQL. */
export interface MigrationSession {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
}

// Prisma's own bookkeeping table, so `prisma migrate status` agrees where it can run.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Any constant: instances serialize on it so that only one applies migrations. */
const MIGRATION_LOCK_ID = 7_246_614_221;

/**
 * Applies the migrations not yet recorded, each in its own transaction, under a
 * session-level advisory lock: a second instance waits, then finds nothing to do.
 * A recorded migration whose file changed is an error, never silently re-run.
 */
export async function applyMigrations(
  session: MigrationSession,
  migrations: Migration[],
): Promise<string[]> {
  await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
  try {
    await session.exec(CREATE_MIGRATIONS_TABLE);
    const rows = await session.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied.`);
        }
        continue;
      }
      await session.exec('BEGIN');
      try {
        await session.exec(migration.sql);
        await session.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await session.exec('COMMIT');
      } catch (error) {
        await session.exec('ROLLBACK');
        throw error;
      }
      done.push(migration.name);
    }
    return done;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
  }
}
