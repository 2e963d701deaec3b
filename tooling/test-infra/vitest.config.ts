import { defineConfig } from 'vitest/config';
import { useMemoryTmpdir } from './src/memory-tmpdir.js';

useMemoryTmpdir();

export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
