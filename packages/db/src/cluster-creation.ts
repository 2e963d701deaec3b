import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INITDB_OPTIONS, type OsUser } from '@secadmin/embedded-postgres';

const run = promisify(execFile);

/**
 * The cluster made on the first start, when `cluster` does not exist. One without PG_VERSION is
 * refused, never replaced: it may be a damaged cluster whose data is still there.
 */
export async function ensureCluster(
  paths: { cluster: string; password: string; log: string },
  initdb: string,
  user: OsUser | undefined,
): Promise<void> {
  if (!existsSync(paths.cluster)) return createCluster(paths.cluster, paths.password, initdb, user);
  if (!existsSync(join(paths.cluster, 'PG_VERSION')))
    throw new Error(
      `${paths.cluster} has no PG_VERSION, so it is not a whole PostgreSQL cluster: it may be a damaged one (see ${paths.log} and the system log), to restore from a backup; remove that directory only to start with an empty database.`,
    );
}

/**
 * initdb into a directory of its own, renamed into place once complete: a start killed halfway
 * leaves no cluster that looks whole. The password is random, kept 0600 in the data dir; initdb
 * reads it from a file beside the cluster, there only while it runs.
 */
async function createCluster(
  cluster: string,
  passwordFile: string,
  initdb: string,
  user: OsUser | undefined,
): Promise<void> {
  const building = `${cluster}.initdb`;
  const pwfile = `${cluster}.initdb-password`;
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { mode: 0o700 });
  const password = randomBytes(24).toString('base64url');
  await rm(pwfile, { force: true });
  await writeFile(pwfile, password, { mode: 0o600 });
  try {
    if (user) {
      await chown(building, user.uid, user.gid);
      await chown(pwfile, user.uid, user.gid);
    }
    await run(
      initdb,
      ['-D', building, ...INITDB_OPTIONS, '--auth=scram-sha-256', `--pwfile=${pwfile}`],
      user ? { uid: user.uid, gid: user.gid } : {},
    );
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? error}`, {
      cause: error,
    });
  } finally {
    await rm(pwfile, { force: true });
  }
  await rm(passwordFile, { force: true });
  await writeFile(passwordFile, password, { mode: 0o600 });
  await rename(building, cluster);
}
