import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '../src/scratch-database.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh PostgreSQL database on the server here, dropped by `drop`. */
export const freshPostgres = () => createScratchDatabase(ADMIN_URL, 'secadmin_dbtest');

export async function freshDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'secadmin-db-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
