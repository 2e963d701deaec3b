import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The root package.json script that moves a PGlite-era data dir over (tooling/migrate-from-pglite). */
export const MIGRATE_LEGACY_COMMAND = 'pnpm db:migrate-from-pglite --data-dir';

export class LegacyDataDirError extends Error {
  override readonly name = 'LegacyDataDirError';
}

/** Where secadmin versions before the embedded PostgreSQL kept their database (PGlite). */
export const legacyCluster = (dataDir: string) => join(dataDir, 'db');

/** `path` as one word of a POSIX shell command line: quoted only when it must be. */
const shellWord = (path: string) =>
  /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;

/**
 * Refuses a data dir whose database is still the PGlite one of an earlier version (and that has
 * no embedded PostgreSQL yet): started as it is, the service would begin with an empty database.
 */
export function refuseLegacyDataDir(dataDir: string, cluster: string): void {
  if (existsSync(cluster) || !existsSync(join(legacyCluster(dataDir), 'PG_VERSION'))) return;
  throw new LegacyDataDirError(
    `${dataDir} holds the database of an earlier secadmin (PGlite, in ${legacyCluster(dataDir)}), which this version does not open. ` +
      `Move its data to the embedded PostgreSQL with this command, run from the repository root while secadmin is stopped: ${MIGRATE_LEGACY_COMMAND} ${shellWord(dataDir)}`,
  );
}
