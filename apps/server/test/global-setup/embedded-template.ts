import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@secadmin/db';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated embedded database, closed: test servers start on a copy of it. */
    embeddedTemplate: string;
  }
}

/**
 * vitest globalSetup: creating and migrating a PGlite database takes seconds, and most test
 * files start several embedded servers; each starts on a copy of this one instead. The path a
 * server takes on an empty data dir is taken here, once per run, and by the tests that start
 * the built server as a user does.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-embedded-template-'));
  const database = await openDatabase({ dataDir });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
  project.provide('embeddedTemplate', join(dataDir, 'db'));
  return () => rm(dataDir, { recursive: true, force: true });
}
