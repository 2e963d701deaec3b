import { createHash } from 'node:crypto';
import { chmod, chown, lstat, mkdir, realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { OsUser } from '@secadmin/embedded-postgres';

/**
 * As root, where what PostgreSQL must reach goes when the data dir is out of its user's reach:
 * `embedded/<data dir's key>` per cluster, `postgres-binaries-<version>` per version.
 */
export const REACHABLE_ROOT = '/var/lib/secadmin';
const HOMES = join(REACHABLE_ROOT, 'embedded');

/** The home outside the data dir for its cluster: named by the data dir's real path. */
export async function clusterHomeOf(dataDir: string): Promise<string> {
  const key = createHash('sha256')
    .update(await realpath(dataDir))
    .digest('hex')
    .slice(0, 16);
  return join(HOMES, key);
}

/** Whether `path` is a cluster home: a directory right under the homes. */
export const isClusterHome = (path: string) => dirname(path) === HOMES;

/**
 * A directory someone other than root could replace or fill is not trusted: it must be a real
 * directory (no symlink), root's, writable by no one else.
 */
async function refuseUntrusted(path: string): Promise<void> {
  const entry = await lstat(path);
  if (!entry.isDirectory() || entry.uid !== 0 || (entry.mode & 0o022) !== 0)
    throw new Error(
      `${path} is not a directory that only root may change (owner uid ${entry.uid}, mode ${(entry.mode & 0o7777).toString(8)}): it is not trusted with the embedded PostgreSQL; remove it or make it root's, not writable by others`,
    );
}

/**
 * `dir` and every directory above it checked to be root's and writable by no one else; those
 * missing are created so (`mode` for `dir`, 0755 above it). A directory pre-created by another
 * user is refused, never adopted.
 */
export async function trustedDirectory(dir: string, mode: number): Promise<void> {
  const parts = dir.split(sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const path = sep + parts.slice(0, i).join(sep);
    const wanted = i === parts.length ? mode : 0o755;
    const created = await mkdir(path, { mode: wanted }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
    // The umask may have taken bits away.
    if (created) await chmod(path, wanted);
    await refuseUntrusted(path);
  }
}

/**
 * The cluster home of `dataDir`, made if missing: root's, the server user's group may only
 * traverse it (0710). Refused if it or a directory above it is not root's alone.
 */
export async function makeClusterHome(dataDir: string, user: OsUser): Promise<string> {
  const home = await clusterHomeOf(dataDir);
  await trustedDirectory(HOMES, 0o711);
  await trustedDirectory(home, 0o710);
  await chown(home, 0, user.gid);
  await chmod(home, 0o710);
  return home;
}

/** The home of a cluster kept outside its data dir, checked as when it was made. */
export async function checkClusterHome(home: string): Promise<void> {
  await trustedDirectory(HOMES, 0o711);
  await refuseUntrusted(home);
}
