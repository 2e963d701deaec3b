import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL for the run (TEST_DATABASE_URL, or one started for it), as inject('postgresUrl').
    globalSetup: ['@secadmin/test-infra/global-setup/postgres'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
