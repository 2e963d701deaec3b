import { useMemoryTmpdir } from '@secadmin/test-infra';
import { defineConfig } from 'vitest/config';

useMemoryTmpdir();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['@secadmin/test-infra/global-setup/postgres'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
