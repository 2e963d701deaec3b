import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterHomeOf, removeClusterHome } from '@secadmin/db';
import { afterAll, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
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

/** The pids of the postmasters running on the data dir's cluster (or on `cluster`). */
async function postmastersOf(
  dataDir: string,
  cluster = join(dataDir, 'postgres'),
): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0]?.endsWith('/postgres') && argv[argv.indexOf('-D') + 1] === cluster)
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
      expect(gid).toBe(Number(execFileSync('id', ['-g', 'secadmin-postgres']).toString()));
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
    const mode = (await stat(dataDir)).mode;
    const second = launchMain({ SECADMIN_DATA_DIR: dataDir, PORT: '0' });
    await waitFor('the second server to exit', () => second.child.exitCode !== null, 60_000);
    expect(second.child.exitCode).toBe(1);
    expect(second.output()).toContain(`is in use by process ${first.child.pid}`);
    // The refused one changed nothing: the first one's PostgreSQL still reaches its cluster,
    // also when it has to be started again.
    expect((await stat(dataDir)).mode).toBe(mode);
    const [postmaster] = await postmastersOf(dataDir);
    process.kill(postmaster as number, 'SIGKILL');
    await waitFor(
      'the first server to start its PostgreSQL again',
      async () => {
        const running = await postmastersOf(dataDir);
        return (
          running.length === 1 &&
          running[0] !== postmaster &&
          (await fetch(`${first.url}/readyz`)).status === 200
        );
      },
      60_000,
    );
  } finally {
    await first.stop();
  }
});

it.skipIf(process.getuid?.() !== 0)(
  'as root, starts on a data dir whose parent the database server user cannot traverse, keeps its data across SIGTERM and kill -9, and leaves that parent closed (skipped: only root switches users)',
  async () => {
    const parent = await freshDataDir();
    const dataDir = join(parent, 'data');
    const key = generateSecret();
    const env = { SECADMIN_DATA_DIR: dataDir, SECADMIN_ADMIN_API_KEY: key };
    const users = async (url: string) =>
      (
        (await (
          await fetch(`${url}/v1/users?limit=10`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { data: { email: string }[] }
      ).data.map((u) => u.email);

    let server = await spawnServer(env);
    try {
      const cluster = join(await clusterHomeOf(dataDir), 'postgres');
      try {
        const created = await fetch(`${server.url}/v1/users`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'kept@example.com', name: 'Kept' }),
        });
        expect(created.status).toBe(201);
        const started = server
          .output()
          .split('\n')
          .filter((line) => line.includes('"starting the embedded PostgreSQL"'));
        expect(started.map((line) => JSON.parse(line).cluster)).toEqual([cluster]);
      } finally {
        await server.stop();
      }
      expect(await postmastersOf(dataDir, cluster)).toEqual([]);

      server = await spawnServer(env);
      expect(await users(server.url)).toEqual(['kept@example.com']);
      const [left] = await postmastersOf(dataDir, cluster);
      await server.kill9();
      expect(await postmastersOf(dataDir, cluster)).toEqual([left]);

      server = await spawnServer(env);
      try {
        expect(await users(server.url)).toEqual(['kept@example.com']);
        const running = await postmastersOf(dataDir, cluster);
        expect(running).toHaveLength(1);
        expect(running).not.toContain(left);
      } finally {
        await server.stop();
      }
      expect(await postmastersOf(dataDir, cluster)).toEqual([]);
      expect((await stat(parent)).mode & 0o777).toBe(0o700);
    } finally {
      await server.dispose();
      await removeClusterHome(dataDir);
    }
  },
);
