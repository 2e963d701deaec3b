import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Redis first: without redis-server, the run stops before PostgreSQL is set up.
    globalSetup: [
      '@secadmin/test-infra/global-setup/redis',
      '@secadmin/test-infra/global-setup/postgres',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files each start servers on two databases: run files one at a time
    // on this 2-core machine so that timing-sensitive tests are not starved.
    fileParallelism: false,
  },
});
