import { join } from 'node:path';

/** Where a finished export's file lives in the data dir. */
export function exportFilePath(dataDir: string, id: string, format: string): string {
  return join(dataDir, 'exports', `${id}.${format}`);
}
