import type { TestProject } from 'vitest/node';
import { testRedis } from '../redis.js';
import { provideServer } from './provide.js';

/** vitest globalSetup: one Redis for the whole run, given to tests as inject('redisUrl'). */
export default (project: TestProject) => provideServer(project, 'redisUrl', testRedis);
