import { tmpdir } from 'node:os';
import { useMemoryTmpdir } from '@secadmin/test-infra';
import { configDefaults, defineConfig } from 'vitest/config';

const DISK_TMPDIR = tmpdir();
useMemoryTmpdir();

/**
 * Files that measure time (event-loop delay, latencies) or start clusters and load of their
 * own: they run one at a time, last, on a machine with nothing else of the suite running.
 * `test/serial-files.test.ts` fails when such a file is not one.
 */
const SERIAL = ['src/**/*.serial.test.ts', 'test/**/*.serial.test.ts'];
/**
 * Files that need a module graph of their own (they replace a module with `vi.mock`) or kill
 * and restart server processes of their own, but measure nothing that a neighbour distorts:
 * two at a time, between the other groups.
 */
const ISOLATED = ['src/**/*.isolated.test.ts', 'test/**/*.isolated.test.ts'];

export default defineConfig({
  test: {
    // Redis first: without redis-server, the run stops before PostgreSQL is set up.
    globalSetup: [
      '@secadmin/test-infra/global-setup/redis',
      '@secadmin/test-infra/global-setup/postgres',
      './test/global-setup/postgres-template.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SERIAL, ...ISOLATED],
          // Each file starts servers of its own: two at a time on two cores.
          maxWorkers: 2,
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
      {
        extends: true,
        test: {
          name: 'serial',
          include: SERIAL,
          // On the disk, as in production: the files the test servers write while these files
          // measure the event loop (measureLoopDelay refuses to measure with them in memory).
          env: { TMPDIR: DISK_TMPDIR },
          fileParallelism: false,
          // One module graph for the group, as in the parallel group: none replaces a module.
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
