import { useMemoryTmpdir } from '@secadmin/test-infra';
import { configDefaults, defineConfig } from 'vitest/config';

useMemoryTmpdir();

/**
 * Files that need a module graph of their own (they replace a module with `vi.mock`), or start
 * a PostgreSQL or Redis of their own and stop it under load, or kill and restart server
 * processes of their own: two at a time after the parallel group, so that at most two such
 * clusters or process trees are up at once. No file measures time: `test/suite-rules.test.ts`
 * fails when one does, or when such a file is not named so.
 */
const ISOLATED = ['src/**/*.isolated.test.ts', 'test/**/*.isolated.test.ts'];

export default defineConfig({
  test: {
    // Redis first: without redis-server, the run stops before PostgreSQL is set up.
    globalSetup: [
      '@secadmin/test-infra/global-setup/redis',
      '@secadmin/test-infra/global-setup/postgres',
      './test/global-setup/postgres-template.ts',
      './test/global-setup/analytics-root.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          // Each file starts servers of its own and spends much of its time waiting on them and on
          // PostgreSQL: three at a time keep two cores busy.
          maxWorkers: 3,
          // A worker runs its files one after another in one module graph: each file does not
          // load the server's modules again. Tests share no module state: each starts servers of
          // its own; a file that replaces a module is isolated.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
