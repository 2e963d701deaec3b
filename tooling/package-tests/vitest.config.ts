import { defineConfig } from 'vitest/config';

export default defineConfig({
  // tsc over the packed packages takes 7–12 s alone, minutes on a loaded CI machine.
  test: { include: ['test/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 240_000 },
});
