import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { type ServerProcess, spawnServer } from '../helpers/process.js';

const MIGRATE = fileURLToPath(new URL('../../dist/migrate.js', import.meta.url));

/** `pnpm db:migrate` as a person runs it: its exit code and what it printed. */
async function migrate(dataDir: string) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MIGRATE], {
      env: { ...process.env, DATABASE_URL: '', SECADMIN_DATA_DIR: dataDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let server: ServerProcess | undefined;
let dataDir = '';
afterAll(async () => {
  await server?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('refuses beside a running server in one plain line, then migrates once it has stopped', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'secadmin-migrate-'));
  server = await spawnServer({ SECADMIN_DATA_DIR: dataDir });
  const refused = await migrate(dataDir);
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(/^not migrated: The embedded database at .* is in use by process \d+\./),
  ]);
  await server.stop();
  server = undefined;
  const done = await migrate(dataDir);
  expect(done).toMatchObject({ code: 0, stdout: 'Database is up to date.\n' });
});
