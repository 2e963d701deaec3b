import { writeFile } from 'node:fs/promises';

/**
 * Writes a generated secret into a new file that only this user may read (0600). The file
 * must not exist (`wx`): a link or file planted at `path` is never followed or reused, and two
 * processes never both write it. False when it existed: nothing was written.
 */
export async function createSecretFile(path: string, content: string): Promise<boolean> {
  try {
    await writeFile(path, content, { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
