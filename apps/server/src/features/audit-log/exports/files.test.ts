import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirExportFiles } from './files.js';

describe('export files in the data dir', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('wait for many drains without piling up listeners on the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'secadmin-export-files-'));
    dirs.push(dir);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const writer = await new DataDirExportFiles(dir).create('exp_test', 'csv');
      // Each chunk is over the stream's buffer: every write waits for a drain.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      for (let i = 0; i < 40; i++) await writer.write(chunk);
      await writer.finish();
      // Warnings are emitted on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect((await readFile(join(dir, 'exports', 'exp_test.csv'))).length).toBe(40 * 64 * 1024);
  });
});
