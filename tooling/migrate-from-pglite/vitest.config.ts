import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A hang guard, not a speed check: two embedded servers start, and the server twice.
  test: { include: ['test/**/*.test.ts'], testTimeout: 300_000, hookTimeout: 300_000 },
});
