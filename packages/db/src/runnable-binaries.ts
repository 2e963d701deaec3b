import { execFile } from 'node:child_process';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  copyBinaries,
  EMBEDDED_PACKAGE,
  EmbeddedPostgresMissingError,
  embeddedBinaries,
  type OsUser,
  type PostgresBinaries,
} from '@secadmin/embedded-postgres';
import { REACHABLE_ROOT, trustedDirectory } from './cluster-home.js';

const run = promisify(execFile);

const versionAs = async (postgres: string, as?: OsUser) =>
  (await run(postgres, ['--version'], as ? { uid: as.uid, gid: as.gid } : {})).stdout;

const binariesIn = (dir: string): PostgresBinaries => ({
  initdb: join(dir, 'bin', 'initdb'),
  pg_ctl: join(dir, 'bin', 'pg_ctl'),
  postgres: join(dir, 'bin', 'postgres'),
});

/**
 * The embedded-postgres binaries, or, when the user PostgreSQL runs as cannot execute them
 * (a checkout under a 0700 home), a copy of them under /var/lib/secadmin that it can, made once
 * per version, root's and writable by no one else.
 */
export async function runnableBinaries(user: OsUser | undefined): Promise<PostgresBinaries> {
  const installed = await embeddedBinaries().catch((error: Error) => {
    throw error instanceof EmbeddedPostgresMissingError
      ? new Error(
          `${error.message}, so there is no embedded database on this platform: set DATABASE_URL to a PostgreSQL server (or install ${EMBEDDED_PACKAGE}).`,
        )
      : error;
  });
  if (!user) return installed;
  const wanted = await versionAs(installed.postgres);
  if (await versionAs(installed.postgres, user).catch(() => undefined)) return installed;
  const version = /\d+(\.\d+)*/.exec(wanted)?.[0] ?? 'unknown';
  const dir = join(REACHABLE_ROOT, `postgres-binaries-${version}`);
  await trustedDirectory(REACHABLE_ROOT, 0o755);
  const runs = async () =>
    (await versionAs(binariesIn(dir).postgres, user).catch(() => undefined)) === wanted &&
    (await trustedDirectory(dir, 0o755).then(() => true));
  if (await runs()) return binariesIn(dir);

  // Copied aside, then renamed: a copy cut short is never taken for a whole one.
  const copying = `${dir}.copying-${process.pid}`;
  await rm(copying, { recursive: true, force: true });
  try {
    await copyBinaries(installed, copying);
    await run('chmod', ['-R', 'go-w', copying]);
    await rm(dir, { recursive: true, force: true });
    // Another service may have put its copy in place meanwhile: then that one is used.
    await rename(copying, dir).catch(async (error) => {
      if (!(await runs())) throw error;
    });
  } finally {
    await rm(copying, { recursive: true, force: true });
  }
  if (!(await runs())) throw new Error(`the PostgreSQL binaries copied to ${dir} do not run`);
  return binariesIn(dir);
}
