import type { TestProject } from 'vitest/node';
import { testPostgres } from '../postgres.js';
import { provideServer } from './provide.js';

/** vitest globalSetup: one PostgreSQL for the whole run, given to tests as inject('postgresUrl'). */
export default (project: TestProject) => provideServer(project, 'postgresUrl', testPostgres);
