import { execFile, execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  copyBinaries,
  embeddedBinaries,
  freePort,
  INITDB_OPTIONS,
  type PostgresBinaries,
  unprivilegedUser,
} from '@secadmin/embedded-postgres';
import pg from 'pg';
import { atExit } from './at-exit.js';
import { guardAgainstOrphans } from './orphans.js';
import { NotInstalledError, type OwnedServer, type RunServer } from './servers.js';

const run = promisify(execFile);

/** The embedded-postgres binaries, or a message that says what to set instead. */
async function binaries(): Promise<PostgresBinaries> {
  try {
    return await embeddedBinaries();
  } catch (error) {
    throw new NotInstalledError(
      `${(error as Error).message}: set TEST_DATABASE_URL to a PostgreSQL server`,
    );
  }
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

/**
 * The newest PostgreSQL the system's packages installed (Debian and Ubuntu put each major
 * version under /usr/lib/postgresql/<major>/bin), or the one `pg_config` names, with every
 * program asked for; undefined when there is none.
 */
async function installedBinaries<P extends string>(
  programs: readonly P[],
): Promise<Record<P, string> | undefined> {
  const root = '/usr/lib/postgresql';
  const majors = await readdir(root).catch(() => [] as string[]);
  const dirs = majors
    .filter((major) => /^\d+(\.\d+)?$/.test(major))
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => join(root, major, 'bin'));
  try {
    const configured = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (configured) dirs.push(configured);
  } catch {
    // no pg_config on PATH
  }
  for (const dir of dirs) {
    const found = Object.fromEntries(programs.map((p) => [p, join(dir, p)])) as Record<P, string>;
    if (Object.values<string>(found).every((file) => existsSync(file))) return found;
  }
  return undefined;
}

/** A cluster's directory, owned by the user PostgreSQL runs as, removed at exit at the latest. */
async function clusterDir(
  prefix: string,
  user: { uid: number; gid: number } | undefined,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (user) await chown(dir, user.uid, user.gid);
  return dir;
}

/**
 * A cluster in `dir` (its data in `dir/data`, made by `create`) on a spare port of 127.0.0.1:
 * started, and stopped and deleted by `remove` or at exit.
 */
async function ownCluster(
  dir: string,
  pg_ctl: string,
  user: { uid: number; gid: number } | undefined,
  create: (data: string) => Promise<unknown>,
): Promise<OwnedServer> {
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
  // SIGQUIT: PostgreSQL's immediate shutdown.
  const orphans = guardAgainstOrphans({
    pidFile: join(data, 'postmaster.pid'),
    signal: 'SIGQUIT',
    remove: dir,
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
    orphans.cancel();
  };

  try {
    await create(data);
    await start();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return { url, version: await serverVersion(url), start, stop, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

// Trust: a test's own cluster, on a port of 127.0.0.1 and a temporary directory.
const TEST_INITDB_OPTIONS = [...INITDB_OPTIONS, '--auth=trust', '--no-sync'];

/** A PostgreSQL server of its own (user postgres, no password), in a temporary directory. */
export async function startPostgres(): Promise<OwnedServer> {
  // embedded-postgres first (one known version everywhere), else the system's own.
  const embedded = await binaries().catch((error: Error) => error);
  const installed =
    embedded instanceof Error ? await installedBinaries(['initdb', 'pg_ctl'] as const) : embedded;
  if (!installed) throw embedded;
  const user = unprivilegedUser();
  const dir = await clusterDir('secadmin-postgres-', user);
  // As root the binaries run as another user, who may not reach node_modules (a checkout
  // under a 0700 directory): they run from a copy in the server's own directory.
  const { initdb, pg_ctl } =
    user && !(embedded instanceof Error)
      ? await copyBinaries(embedded, join(dir, 'pg'))
      : installed;
  return ownCluster(dir, pg_ctl, user, (data) =>
    run(initdb, ['-D', data, ...TEST_INITDB_OPTIONS], { ...user }),
  );
}

/** A primary and its streaming replica, each a server of its own as `startPostgres` makes. */
export interface ReplicatedPostgres {
  primary: OwnedServer;
  /** A hot standby of `primary`: it answers reads, replays the primary's writes. */
  replica: OwnedServer;
  /** Removes both. */
  remove(): Promise<void>;
}

/**
 * A primary set up for streaming replication and a hot standby of it, made with
 * `pg_basebackup -R` from the running primary. Needs the system's PostgreSQL programs
 * (embedded-postgres has no pg_basebackup).
 */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const programs = await installedBinaries(['initdb', 'pg_ctl', 'pg_basebackup'] as const);
  if (!programs)
    throw new NotInstalledError(
      'a PostgreSQL installation with pg_basebackup (e.g. /usr/lib/postgresql/<major>/bin) is needed for a replica',
    );
  const { initdb, pg_ctl, pg_basebackup } = programs;
  const user = unprivilegedUser();
  const primary = await ownCluster(
    await clusterDir('secadmin-primary-', user),
    pg_ctl,
    user,
    async (data) => {
      await run(initdb, ['-D', data, ...TEST_INITDB_OPTIONS], { ...user });
      await appendFile(
        join(data, 'postgresql.conf'),
        '\nwal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n',
      );
      await appendFile(
        join(data, 'pg_hba.conf'),
        '\nhost replication postgres 127.0.0.1/32 trust\n',
      );
    },
  );
  try {
    const { hostname, port } = new URL(primary.url);
    const replica = await ownCluster(
      await clusterDir('secadmin-replica-', user),
      pg_ctl,
      user,
      (data) =>
        // -R: standby.signal and primary_conninfo; a fast checkpoint, so it starts at once.
        run(
          pg_basebackup,
          [
            ...['-h', hostname, '-p', port, '-U', 'postgres', '-D', data],
            ...['-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
          ],
          { ...user },
        ),
    );
    return {
      primary,
      replica,
      remove: async () => {
        await replica.remove();
        await primary.remove();
      },
    };
  } catch (error) {
    await primary.remove();
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
