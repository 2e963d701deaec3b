import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's test processes keep their embedded ClickHouse data, one directory each. */
    analyticsRoot: string;
  }
}

/**
 * vitest globalSetup: one directory for the run's embedded analytics engines, removed when the
 * run ends. A worker's own exit handler does not run when vitest ends the worker, which left a
 * directory per worker behind every run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), 'secadmin-test-clickhouse-'));
  project.provide('analyticsRoot', root);
  return () => rm(root, { recursive: true, force: true });
}
