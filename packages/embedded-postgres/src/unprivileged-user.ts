import { execFileSync } from 'node:child_process';

/** An operating-system user, as `spawn`'s `uid`/`gid` options take it. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/** The user a new embedded cluster runs as when the service runs as root. */
export const DEDICATED_USER = 'secadmin-postgres';

const id = (...args: string[]) =>
  execFileSync('id', args, { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();

/** The user `name` (or numeric uid), undefined if there is none. */
export function osUser(name: string): OsUser | undefined {
  try {
    return { name: id('-nu', name), uid: Number(id('-u', name)), gid: Number(id('-g', name)) };
  } catch {
    return undefined;
  }
}

/**
 * initdb and postgres refuse to run as root: as root, the shared user they may run as, postgres
 * or nobody (test clusters do). Undefined when this process is not root (they run as this
 * process's user).
 */
export function unprivilegedUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = osUser('postgres') ?? osUser('nobody');
  if (!user)
    throw new Error('PostgreSQL cannot run as root, and there is no postgres or nobody user');
  return user;
}

/**
 * As root, the user of a new cluster: one of its own, made if missing. The postgres user is
 * shared with any other PostgreSQL on the host, whose superusers act as it (`COPY … TO
 * PROGRAM`) and could then change this cluster. Without it (no useradd, or it failed), the
 * shared user, with `warn` saying why.
 */
export function dedicatedUser(warn: (message: string) => void): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = osUser(DEDICATED_USER);
  if (existing) return existing;
  try {
    execFileSync(
      'useradd',
      [
        ...['--system', '--no-create-home', '--home-dir', '/nonexistent'],
        ...['--shell', '/usr/sbin/nologin', DEDICATED_USER],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    // Another service may have made it meanwhile.
    const made = osUser(DEDICATED_USER);
    if (made) return made;
    const fallback = unprivilegedUser();
    warn(
      `could not create the system user ${DEDICATED_USER} (${(error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message}): PostgreSQL runs as ${fallback?.name}, shared with any other PostgreSQL on this host`,
    );
    return fallback;
  }
  return osUser(DEDICATED_USER);
}
