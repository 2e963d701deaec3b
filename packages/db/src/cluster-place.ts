import { execFile } from 'node:child_process';
import { chmod, chown, lstat, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { dedicatedUser, type OsUser, osUser } from '@secadmin/embedded-postgres';
import {
  checkClusterHome,
  clusterHomeOf,
  isClusterHome,
  makeClusterHome,
  REACHABLE_ROOT,
} from './cluster-home.js';

const run = promisify(execFile);

/** Where the embedded server keeps what, under the data dir. */
export function embeddedPaths(dataDir: string) {
  return {
    /** The cluster, or (as root, when the data dir is out of reach) a symlink to it. */
    cluster: join(dataDir, 'postgres'),
    password: join(dataDir, 'postgres-password'),
    log: join(dataDir, 'postgres.log'),
  };
}

const canTraverse = (dir: string, user: OsUser) =>
  run('/bin/sh', ['-c', 'cd -- "$0"', dir], { uid: user.uid, gid: user.gid }).then(
    () => true,
    () => false,
  );

/**
 * As root, the user the data dir's cluster runs as: its owner once made, else a user of its own
 * (`warn` says why when it is the shared one instead). Undefined when not root.
 */
export async function clusterUser(
  dataDir: string,
  warn: (message: string) => void = () => {},
): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const made = await stat(embeddedPaths(dataDir).cluster).catch(() => undefined);
  if (!made) return dedicatedUser(warn);
  const owner = osUser(String(made.uid));
  if (!owner)
    throw new Error(`the owner (uid ${made.uid}) of the cluster of ${dataDir} is no user`);
  return owner;
}

/**
 * As root, PostgreSQL runs as another user: if that user may traverse the directories above the
 * data dir, the data dir becomes traversable (not readable) by its group, and true is returned;
 * the data dir's other files stay 0600. Without a user switch, true.
 */
export async function letServerReach(dataDir: string, user: OsUser | undefined): Promise<boolean> {
  if (!user) return true;
  if (!(await canTraverse(dirname(dataDir), user))) return false;
  await chown(dataDir, process.getuid?.() ?? 0, user.gid);
  await chmod(dataDir, 0o710);
  return canTraverse(dataDir, user);
}

const unreachable = (dataDir: string, user: OsUser, reason: string) =>
  new Error(
    `PostgreSQL runs as user ${user.name} when the service runs as root, and that user cannot reach ${dataDir} (${reason}): ` +
      `give SECADMIN_DATA_DIR a place whose parent directories it may traverse, let root create ${REACHABLE_ROOT}, run the service as another user, or set DATABASE_URL.`,
  );

/**
 * The directory PostgreSQL runs the data dir's cluster in: `<data dir>/postgres`, or, as root
 * when the server's user cannot reach the data dir, the cluster in the data dir's home under
 * /var/lib/secadmin, which `<data dir>/postgres` links to. No directory above the data dir is
 * opened to that user. A cluster already made is found where it is.
 */
export async function reachableCluster(dataDir: string, user: OsUser | undefined): Promise<string> {
  const { cluster } = embeddedPaths(dataDir);
  if (!user) return cluster;
  const entry = await lstat(cluster).catch(() => undefined);
  if (entry?.isSymbolicLink()) return linkedCluster(dataDir);
  if (await letServerReach(dataDir, user)) return cluster;
  if (entry) throw unreachable(dataDir, user, `its cluster is in ${cluster}`);
  const home = await makeClusterHome(dataDir, user).catch((error: Error) => {
    throw unreachable(dataDir, user, error.message);
  });
  const elsewhere = join(home, 'postgres');
  // Nothing links to it: whatever is there was left by a data dir removed since.
  await rm(elsewhere, { recursive: true, force: true });
  await symlink(elsewhere, cluster);
  return elsewhere;
}

/** Where `<data dir>/postgres` links to, refused unless it is that data dir's home. */
async function linkedCluster(dataDir: string): Promise<string> {
  const link = embeddedPaths(dataDir).cluster;
  const target = await readlink(link);
  const expected = join(await clusterHomeOf(dataDir), 'postgres');
  if (target !== expected)
    throw new Error(
      `${link} links to ${target}, not to ${expected}, where the cluster of this data dir is kept (was the data dir moved or copied?): move that cluster to ${expected} (a directory of root's, mode 0710) and link it, or remove the link to start an empty database.`,
    );
  await checkClusterHome(dirname(target)).catch((error: Error) => {
    throw new Error(
      `the cluster of ${dataDir} is kept in ${target}, which cannot be used: ${error.message}`,
    );
  });
  return target;
}

/**
 * Moves the stopped cluster and password of data dir `from` to data dir `to` (which has none),
 * a home outside the data dir included; returns where the cluster now is.
 */
export async function moveCluster(from: string, to: string): Promise<string> {
  const source = embeddedPaths(from);
  const target = embeddedPaths(to);
  let cluster = target.cluster;
  if ((await lstat(source.cluster)).isSymbolicLink()) {
    const home = await clusterHomeOf(to);
    await rm(home, { recursive: true, force: true });
    await rename(dirname(await linkedCluster(from)), home);
    cluster = join(home, 'postgres');
    await symlink(cluster, target.cluster);
    await rm(source.cluster);
  } else await rename(source.cluster, target.cluster);
  await rename(source.password, target.password);
  return cluster;
}

/** Removes the home outside the data dir that `<data dir>/postgres` links to, if any. */
export async function removeClusterHome(dataDir: string): Promise<void> {
  const target = await readlink(embeddedPaths(dataDir).cluster).catch(() => undefined);
  if (target && isClusterHome(dirname(target)))
    await rm(dirname(target), { recursive: true, force: true });
}
