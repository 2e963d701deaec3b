import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { json } from '../helpers/server.js';
import { clientOf, waitForExport } from '../helpers/wait.js';

const run = promisify(execFile);
const KEY = generateSecret();
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function api(url: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${url}${path}`, { ...init, headers });
  return { status: res.status, body: await json(res) };
}

const finished = (url: string, exportId: string) => waitForExport(clientOf(url, KEY), exportId);

// The real server on the embedded database, its exports directory a 256 KiB tmpfs.
describe('exports onto a full disk (embedded database)', { timeout: 120_000 }, () => {
  it('end failed with their partial file removed; the server stays healthy and exports again', async (ctx) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-export-disk-'));
    const exportsDir = join(dataDir, 'exports');
    await mkdir(exportsDir, { mode: 0o700 });
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', exportsDir]);
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true });
      console.warn(`skipped: cannot mount a tmpfs (${(error as Error).message.split('\n')[0]})`);
      ctx.skip();
    }
    let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
    try {
      server = await spawnServer({ SECADMIN_DATA_DIR: dataDir, SECADMIN_ADMIN_API_KEY: KEY });
      for (let batch = 0; batch < 2; batch++) {
        const entries = Array.from({ length: 1000 }, (_, i) => ({
          event: 'disk.export',
          actor: { type: 'service', id: `s${batch}-${i}` },
          result: 'success',
          timestamp: new Date(Date.parse('2022-02-02T00:00:00Z') + (batch * 1000 + i) * 1000),
          metadata: { padding: 'x'.repeat(200) },
        }));
        const { status } = await api(server.url, '/v1/logs', {
          method: 'POST',
          body: JSON.stringify({ entries }),
        });
        expect(status).toBe(201);
      }

      const big = await api(server.url, '/v1/logs/export', {
        method: 'POST',
        body: JSON.stringify({ from: '2022-02-02', to: '2022-02-03', format: 'csv' }),
      });
      expect(big.status).toBe(201);
      expect(await finished(server.url, big.body.data.exportId)).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/could not be written/),
      });
      expect(await readdir(exportsDir)).toEqual([]);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      const small = await api(server.url, '/v1/logs/export', {
        method: 'POST',
        body: JSON.stringify({ from: '2022-02-02T00:00:00Z', to: '2022-02-02T00:01:00Z' }),
      });
      const done = await finished(server.url, small.body.data.exportId);
      expect(done).toMatchObject({ status: 'completed', totalRecords: 60 });
      const download = new URL(done.downloadUrl as string);
      const file = await fetch(`${server.url}${download.pathname}${download.search}`);
      expect(((await file.json()) as unknown[]).length).toBe(60);
    } finally {
      await server?.stop();
      await run('umount', [exportsDir]);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
