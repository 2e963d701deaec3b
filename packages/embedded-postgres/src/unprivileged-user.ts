import { execFileSync } from 'node:child_process';

/** An operating-system user, as `spawn`'s `uid`/`gid` options take it. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * initdb and postgres refuse to run as root: as root, they run as the postgres user, or
 * nobody. Undefined when this process is not root (they run as this process's user).
 */
export function unprivilegedUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) =>
        Number(execFileSync('id', [flag, name], { stdio: ['ignore', 'pipe', 'ignore'] }));
      return { name, uid: id('-u'), gid: id('-g') };
    } catch {
      // no such user
    }
  }
  throw new Error('PostgreSQL cannot run as root, and there is no postgres or nobody user');
}
