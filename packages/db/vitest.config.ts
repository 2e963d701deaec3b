import { useMemoryTmpdir } from '@secadmin/test-infra';
import { defineConfig } from 'vitest/config';

useMemoryTmpdir();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['@secadmin/test-infra/global-setup/postgres'],
    // A hang guard, not a speed check: a fresh embedded database runs initdb on a loaded CI.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
