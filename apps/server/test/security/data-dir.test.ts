import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { launchMain, spawnServer } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function freshDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-mode-'));
  dirs.push(dataDir);
  return dataDir;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    yield path;
    if (entry.isDirectory()) yield* walk(path);
  }
}

/** The pids of the postmasters running on the data dir's cluster. */
async function postmastersOf(dataDir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (
      argv[0]?.endsWith('/postgres') &&
      argv[argv.indexOf('-D') + 1] === join(dataDir, 'postgres')
    )
      pids.push(Number(entry));
  }
  return pids;
}

it('closes the data dir to everyone but its user (and, as root, the database server user, who may only traverse it), even one created 0755', async () => {
  const dataDir = await freshDataDir();
  await chmod(dataDir, 0o755);
  const server = await spawnServer({ SECADMIN_DATA_DIR: dataDir, SECADMIN_METRICS_PORT: '0' });
  try {
    const { mode, gid } = await stat(dataDir);
    if (process.getuid?.() === 0) {
      expect(mode & 0o777).toBe(0o710);
      // The group is the one the embedded PostgreSQL runs as.
      expect(gid).toBe(Number(execFileSync('id', ['-g', 'postgres']).toString()));
    } else expect(mode & 0o777).toBe(0o700);
    const open: string[] = [];
    for await (const path of walk(dataDir))
      if ((await stat(path)).mode & 0o077) open.push(path.slice(dataDir.length));
    expect(open).toEqual([]);
  } finally {
    await server.stop();
  }
  expect(await postmastersOf(dataDir)).toEqual([]);
});

it('starts at once after kill -9, stopping the database server the killed one left: one runs, never two', async () => {
  const dataDir = await freshDataDir();
  const first = await spawnServer({ SECADMIN_DATA_DIR: dataDir });
  const [left] = await postmastersOf(dataDir);
  await first.kill9();
  expect(await postmastersOf(dataDir)).toEqual([left]);
  const second = await spawnServer({ SECADMIN_DATA_DIR: dataDir });
  try {
    const running = await postmastersOf(dataDir);
    expect(running).toHaveLength(1);
    expect(running).not.toContain(left);
  } finally {
    await second.stop();
  }
  expect(await postmastersOf(dataDir)).toEqual([]);
});

it('refuses a second server on the same data dir, naming the one that has it', async () => {
  const dataDir = await freshDataDir();
  const first = await spawnServer({ SECADMIN_DATA_DIR: dataDir });
  try {
    const second = launchMain({ SECADMIN_DATA_DIR: dataDir, PORT: '0' });
    await waitFor('the second server to exit', () => second.child.exitCode !== null, 60_000);
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toContain(`is in use by process ${first.child.pid}`);
    expect(await postmastersOf(dataDir)).toHaveLength(1);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  } finally {
    await first.stop();
  }
});
