import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { isAlive } from './process-alive.js';

export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/**
 * Takes `<path>` (it holds the owner's pid) as this process's exclusive lock on a data dir's
 * embedded database: one service runs its server. A lock left by a dead process is taken over.
 * Returns the release function.
 */
export function lockDataDir(path: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(
          `The embedded database at ${path.replace(/[/\\][^/\\]+$/, '')} is in use by process ${holder}. ` +
            'Stop that server, or give this one another SECADMIN_DATA_DIR (or a DATABASE_URL).',
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock ${path}.`);
}
