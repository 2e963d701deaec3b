import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { useMemoryTmpdir } from '../src/index.js';

it.runIf(existsSync('/dev/shm'))(
  'points TMPDIR at the memory file system when none is named',
  () => {
    const env: NodeJS.ProcessEnv = {};
    useMemoryTmpdir(env);
    expect(env.TMPDIR).toBe('/dev/shm');
  },
);

it('keeps a TMPDIR the run names', () => {
  const env: NodeJS.ProcessEnv = { TMPDIR: '/var/tmp/mine' };
  useMemoryTmpdir(env);
  expect(env.TMPDIR).toBe('/var/tmp/mine');
});
