import { openDatabase } from '@secadmin/db';
import { createScratchDatabase } from '@secadmin/test-infra';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated database on the run's PostgreSQL, no session on it: test servers start on copies. */
    postgresTemplate: string;
  }
}

/**
 * vitest globalSetup, after the run's PostgreSQL is provided: migrating a new database took
 * most of a PostgreSQL test server's start. Each starts on a copy of this one instead
 * (`CREATE DATABASE … TEMPLATE`); tests of migrations themselves take an empty database.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const template = await createScratchDatabase(
    project.getProvidedContext().postgresUrl,
    'secadmin_template',
  );
  try {
    const database = await openDatabase({ url: template.url, dataDir: '/nonexistent' });
    try {
      await database.migrate();
    } finally {
      await database.close();
    }
  } catch (error) {
    await template.drop();
    throw error;
  }
  project.provide('postgresTemplate', template.name);
  return () => template.drop();
}
