import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { type ServerProcess, spawnServer } from '../helpers/process.js';
import { json } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** A tmpfs of `sizeMiB` of its own (root only), unmounted by `unmount` (also after a failure). */
function mountTmpfs(sizeMiB: number): {
  dir: string;
  resize: (sizeMiB: number) => void;
  unmount: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'secadmin-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    resize: (size) =>
      void execFileSync('mount', ['-o', `remount,size=${size}m`, dir], { stdio: 'pipe' }),
    unmount: () => {
      execFileSync('umount', ['--lazy', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why the tests below cannot run here, or undefined when they can. */
function whyNoTmpfs(): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    mountTmpfs(1).unmount();
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

const cannotMount = whyNoTmpfs();
if (cannotMount) console.warn(`skipping the disk-full tests: ${cannotMount}`);

const freeBytes = async (dir: string) => {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
};

/** Fills `dir`'s filesystem until `leaveBytes` remain; returns the file to delete. */
async function ballast(dir: string, leaveBytes: number): Promise<string> {
  const path = join(dir, 'ballast');
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 1);
  try {
    for (let left = (await freeBytes(dir)) - leaveBytes; left > 0; left -= chunk.length)
      await file.write(chunk, 0, Math.min(left, chunk.length));
  } finally {
    await file.close();
  }
  return path;
}

const entries = (batch: number) =>
  Array.from({ length: 1000 }, (_, i) => ({
    event: 'user.login',
    actor: { id: `user_${batch}_${i}`, email: 'ada@example.com', type: 'user' },
    context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 '.repeat(10) },
    result: 'success',
    metadata: { note: 'x'.repeat(1500) },
  }));

function call(
  server: ServerProcess,
  key: string,
  path: string,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    // A hang is what these tests look for: a request fails instead of waiting for the timeout.
    signal: AbortSignal.timeout(15_000),
  });
}

/** The embedded server with its data dir on `disk`, refusing writes below `minFreeMb`. */
const serverOn = (disk: { dir: string }, key: string, minFreeMb: number) =>
  spawnServer({
    SECADMIN_DATA_DIR: join(disk.dir, 'data'),
    SECADMIN_ADMIN_API_KEY: key,
    SECADMIN_MIN_FREE_DISK_MB: String(minFreeMb),
  });

// A hang guard: start-up runs initdb and the migrations on the tmpfs.
describe.skipIf(cannotMount)('disk full, embedded database', { timeout: 180_000 }, () => {
  it('refuses writes with 503 below SECADMIN_MIN_FREE_DISK_MB, serves reads, and recovers once space is freed', async () => {
    // A fresh cluster takes about 40 MiB (a WAL segment is 16 MiB of it).
    const disk = mountTmpfs(128);
    const key = generateSecret();
    let server: ServerProcess | undefined;
    try {
      server = await serverOn(disk, key, 8);
      const s = server;
      let n = 0;
      const createUser = () =>
        call(s, key, '/v1/users', { email: `disk-${n++}@example.com`, name: 'Disk' });
      expect((await createUser()).status).toBe(201);

      const file = await ballast(disk.dir, 4 * 2 ** 20);
      // Checked every second: well within the 5 s the contract allows, bound generously.
      let refused: Response | undefined;
      await waitFor(
        'a write refused',
        async () => {
          const res = await createUser();
          if (res.status === 201) return false;
          refused = res;
          return true;
        },
        10_000,
      );
      const answer = refused as Response;
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect((await json(answer)).error.code).toBe('unavailable');
      for (const [path, body, method] of [
        ['/v1/logs', { entries: entries(0).slice(0, 1) }, 'POST'],
        [
          '/v1/policies',
          { name: 'p', effect: 'allow', principals: ['*'], actions: ['*'], resources: ['*'] },
          'POST',
        ],
        ['/v1/logs/export', { from: '2026-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 'POST'],
      ] as const)
        expect((await call(s, key, path, body, method)).status, path).toBe(503);

      expect((await call(s, key, '/v1/users?limit=5')).status).toBe(200);
      expect((await call(s, key, '/v1/logs?limit=5')).status).toBe(200);
      // docs/operations.md: the POSTs that only read are reads (they keep no response).
      expect((await call(s, key, '/v1/logs/search', { query: 'login' })).status).toBe(200);
      const simulation = { principal: 'user:ada', action: 'users:read', resource: 'users' };
      expect((await call(s, key, '/v1/policies/simulate', simulation)).status).toBe(200);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'degraded',
        checks: {
          database: 'ok',
          rateLimitStore: 'memory',
          // The embedded store shares the full disk: what was sealed meanwhile may not fit.
          analytics: expect.stringMatching(/^(ok|lagging)$/),
          disk: 'low',
        },
      });

      await rm(file);
      await waitFor('writes again', async () => (await createUser()).status === 201, 10_000);
      expect((await json(await fetch(`${s.url}/readyz`))).checks.disk).toBeUndefined();
      expect(s.output()).toContain('free disk space below SECADMIN_MIN_FREE_DISK_MB');
    } finally {
      // SIGTERM, not SIGKILL: the service stops its database server, which would outlive a kill -9.
      await server?.stop();
      disk.unmount();
    }
  });

  it('with no watermark, a write that hits the full disk gets 503s while the process lives on, and writes succeed again once space is freed, without a restart', async () => {
    const disk = mountTmpfs(128);
    const key = generateSecret();
    let server: ServerProcess | undefined;
    try {
      server = await serverOn(disk, key, 0);
      const s = server;
      let status = 201;
      let acknowledged = 0;
      while (acknowledged < 200) {
        status = (await call(s, key, '/v1/logs', { entries: entries(acknowledged) })).status;
        if (status !== 201) break;
        acknowledged++;
      }
      expect(status).toBe(503);
      expect(acknowledged).toBeGreaterThan(0);

      const write = await call(s, key, '/v1/logs', { entries: entries(999) });
      expect(write.status).toBe(503);
      expect(write.headers.get('retry-after')).toBe('1');
      expect((await json(write)).error.code).toBe('unavailable');
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      expect(s.child.exitCode).toBeNull();

      // Space freed: the database server (restarted by the service if the full disk stopped it)
      // takes writes again; the service process is the same one.
      disk.resize(512);
      await waitFor(
        'writes again',
        async () => (await call(s, key, '/v1/logs', { entries: entries(1000) })).status === 201,
        120_000,
      );
      expect(s.child.exitCode).toBeNull();
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      let logins = 0;
      let cursor: string | undefined;
      do {
        const page = await json(
          await call(
            s,
            key,
            `/v1/logs?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          ),
        );
        logins += page.data.filter((e: { event: string }) => e.event === 'user.login').length;
        cursor = page.pagination.nextCursor ?? undefined;
      } while (cursor);
      // Every acknowledged batch is there, and the one after the recovery.
      expect(logins).toBeGreaterThanOrEqual((acknowledged + 1) * 1000);

      await s.stop();
      expect(s.child.exitCode).toBe(0);
    } finally {
      // SIGTERM, not SIGKILL: the service stops its database server, which would outlive a kill -9.
      await server?.stop();
      disk.unmount();
    }
  });
});
