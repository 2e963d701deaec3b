import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '@secadmin/test-infra';
import { inject } from 'vitest';

/** A fresh database on the run's PostgreSQL server, dropped by `drop`. */
export const freshPostgres = () => createScratchDatabase(inject('postgresUrl'), 'secadmin_dbtest');

export async function freshDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'secadmin-db-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
