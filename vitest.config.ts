import { defineConfig } from 'vitest/config';

// Run every package's tests from the root (`pnpm vitest`); turbo runs them per package.
export default defineConfig({
  test: {
    projects: [
      'packages/api-client',
      'packages/cli',
      'packages/db',
      'packages/log-chain',
      'packages/policy',
      'apps/server',
      'tooling/test-infra',
    ],
  },
});
