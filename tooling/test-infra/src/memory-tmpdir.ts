import { accessSync, constants, statfsSync } from 'node:fs';

export const MEMORY_FILE_SYSTEM = '/dev/shm';
/** Less than this free (a container's default /dev/shm is 64 MB) and the disk is kept. */
export const ENOUGH_BYTES = 4 * 1024 ** 3;

/**
 * Points `os.tmpdir()` of this process and the processes it starts at the machine's memory
 * file system, unless the run names a TMPDIR of its own or the machine has no roomy one.
 * Tests' embedded databases and scratch PostgreSQL clusters live in temporary folders and
 * write every page through files; on the disk's file system that I/O, and copying the
 * migrated template for each test server, took a large part of the server suite's time.
 */
export function useMemoryTmpdir(env: NodeJS.ProcessEnv = process.env): void {
  if (env.TMPDIR) return;
  try {
    accessSync(MEMORY_FILE_SYSTEM, constants.W_OK);
    const { bavail, bsize } = statfsSync(MEMORY_FILE_SYSTEM);
    if (bavail * bsize < ENOUGH_BYTES) return;
  } catch {
    return;
  }
  env.TMPDIR = MEMORY_FILE_SYSTEM;
}
