import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnServer } from '../helpers/process.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    yield path;
    if (entry.isDirectory()) yield* walk(path);
  }
}

it('closes the data dir to everyone but its user, even one created 0755', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-mode-'));
  dirs.push(dataDir);
  await chmod(dataDir, 0o755);
  const server = await spawnServer({ SECADMIN_DATA_DIR: dataDir, SECADMIN_METRICS_PORT: '0' });
  try {
    // PGlite sets its files to 0666 whatever the umask: only the closed directory keeps
    // other local users from rewriting the audit log or the key table.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const ours: string[] = [];
    for await (const path of walk(dataDir))
      if (!path.includes('/db/') && (await stat(path)).mode & 0o077)
        ours.push(path.slice(dataDir.length));
    expect(ours).toEqual([]);
  } finally {
    await server.kill9();
  }
});
