import { existsSync, statfsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { useMemoryTmpdir } from '../src/index.js';
import { ENOUGH_BYTES, MEMORY_FILE_SYSTEM } from '../src/memory-tmpdir.js';

const roomy = (() => {
  if (!existsSync(MEMORY_FILE_SYSTEM)) return false;
  const { bavail, bsize } = statfsSync(MEMORY_FILE_SYSTEM);
  return bavail * bsize >= ENOUGH_BYTES;
})();

// Only where the machine has a roomy memory file system: elsewhere the disk is kept.
it.runIf(roomy)('points TMPDIR at the memory file system when none is named', () => {
  const env: NodeJS.ProcessEnv = {};
  useMemoryTmpdir(env);
  expect(env.TMPDIR).toBe(MEMORY_FILE_SYSTEM);
});

it('keeps a TMPDIR the run names', () => {
  const env: NodeJS.ProcessEnv = { TMPDIR: '/var/tmp/mine' };
  useMemoryTmpdir(env);
  expect(env.TMPDIR).toBe('/var/tmp/mine');
});
