import { useMemoryTmpdir } from '@secadmin/test-infra';
import { defineConfig } from 'vitest/config';

useMemoryTmpdir();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL for the run (TEST_DATABASE_URL, or one started for it), as inject('postgresUrl').
    globalSetup: ['@secadmin/test-infra/global-setup/postgres'],
    // A test runs the CLI as a process up to a dozen times: beside the other packages' tests on
    // 2 shared cores, one such test (11 runs) has taken over 30 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
