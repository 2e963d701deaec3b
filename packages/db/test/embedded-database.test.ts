import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { chown, mkdir, readdir, readFile, readlink, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clusterHomeOf,
  DataDirLockedError,
  type EmbeddedPostgresLog,
  embeddedPaths,
  LegacyDataDirError,
  openDatabase,
  removeClusterHome,
  startEmbeddedPostgres,
} from '../src/index.js';
import { ASKS, fakePostgres } from './fake-postgres.js';
import { freshDataDir } from './test-databases.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function dataDir(): Promise<string> {
  const { dir, remove } = await freshDataDir();
  cleanups.push(remove);
  return dir;
}

/** The pids of the postmasters running on `cluster` (a backend's command line is rewritten). */
async function postmastersOf(cluster: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const argv = args.split('\0');
    if (argv[0]?.endsWith('/postgres') && argv[argv.indexOf('-D') + 1] === cluster)
      pids.push(Number(entry));
  }
  return pids;
}

const postmasterPid = async (dir: string) =>
  Number(
    (await readFile(join(embeddedPaths(dir).cluster, 'postmaster.pid'), 'utf8')).split('\n')[0],
  );

/**
 * A service stand-in in a process of its own: opens the data dir's database, writes a row,
 * prints `open` and stays; or prints the error's name and message and exits 3.
 */
async function serviceProcess(dir: string): Promise<{ child: ChildProcess; output: string }> {
  const script = join(dir, '..', `${dir.split('/').pop()}-service.mjs`);
  await writeFile(
    script,
    `import { openDatabase } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
     try {
       const db = await openDatabase({ dataDir: ${JSON.stringify(dir)} });
       await db.query('CREATE TABLE IF NOT EXISTS notes (body text)');
       await db.query("INSERT INTO notes VALUES ('from the first service')");
       console.log('open');
     } catch (e) { console.log(e.name + ': ' + e.message); process.exit(3); }`,
  );
  const child = fork(script, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = once(child, 'exit');
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  await Promise.race([
    exited,
    new Promise<void>((resolve) =>
      child.stdout?.on('data', () => output.includes('open') && resolve()),
    ),
  ]);
  return {
    child,
    get output() {
      return output;
    },
  };
}

const quietLog = () => {
  const lines: string[] = [];
  const infos: object[] = [];
  const details: object[] = [];
  const logged = new EventEmitter();
  const note = (detail: object, message: string) => {
    lines.push(message);
    details.push(detail);
    logged.emit('line', message);
  };
  return {
    lines,
    infos,
    details,
    info: (detail: object) => infos.push(detail),
    warn: note,
    error: note,
    /** Resolves once a warning or error starting with `start` is logged (from now on). */
    next: (start: string) =>
      new Promise<void>((resolve) => {
        const seen = (message: string) => {
          if (!message.startsWith(start)) return;
          logged.off('line', seen);
          resolve();
        };
        logged.on('line', seen);
      }),
  } satisfies EmbeddedPostgresLog & Record<string, unknown>;
};

describe('the embedded PostgreSQL server', () => {
  it('keeps its password and the data dir closed to other users, and stops with close()', async () => {
    const dir = await dataDir();
    const db = await openDatabase({ dataDir: dir });
    const cluster = embeddedPaths(dir).cluster;
    try {
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      expect((await stat(embeddedPaths(dir).password)).mode & 0o777).toBe(0o600);
      // As root, the server's user may traverse the data dir, never list or read it.
      expect((await stat(dir)).mode & 0o077).toBe(process.getuid?.() === 0 ? 0o010 : 0);
      expect(await postmastersOf(cluster)).toHaveLength(1);
    } finally {
      await db.close();
    }
    expect(await postmastersOf(cluster)).toEqual([]);
  });

  it('starts at once after kill -9 of its service: the server left running is stopped, never a second one started', async () => {
    const dir = await dataDir();
    const cluster = embeddedPaths(dir).cluster;
    const first = await serviceProcess(dir);
    expect(first.output).toContain('open');
    const left = await postmasterPid(dir);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    expect(await postmastersOf(cluster)).toEqual([left]);

    const db = await openDatabase({ dataDir: dir });
    try {
      expect(await db.query('SELECT body FROM notes')).toEqual([
        { body: 'from the first service' },
      ]);
      const running = await postmastersOf(cluster);
      expect(running).toHaveLength(1);
      expect(running).not.toContain(left);
    } finally {
      await db.close();
    }
  });

  it("stops no other cluster's postmaster that a stale postmaster.pid names, and starts", async () => {
    const dir = await dataDir();
    await (await openDatabase({ dataDir: dir, log: quietLog() })).close();
    const other = await dataDir();
    const otherDb = await openDatabase({ dataDir: other, log: quietLog() });
    try {
      const otherPid = await postmasterPid(other);
      await writeFile(join(embeddedPaths(dir).cluster, 'postmaster.pid'), `${otherPid}\n`);
      const db = await openDatabase({ dataDir: dir, log: quietLog() });
      try {
        expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
        expect(await postmastersOf(embeddedPaths(other).cluster)).toEqual([otherPid]);
        expect(await otherDb.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      } finally {
        await db.close();
      }
    } finally {
      await otherDb.close();
    }
  });

  it('refuses a second service on the same data dir, naming the first', async () => {
    const dir = await dataDir();
    const db = await openDatabase({ dataDir: dir });
    try {
      const second = await serviceProcess(dir);
      expect(second.child.exitCode).toBe(3);
      expect(second.output).toContain(DataDirLockedError.name);
      expect(second.output).toContain(`in use by process ${process.pid}`);
      expect(await postmastersOf(embeddedPaths(dir).cluster)).toHaveLength(1);
    } finally {
      await db.close();
    }
    // Released on close: it opens again.
    await (await openDatabase({ dataDir: dir })).close();
  });

  it('takes over a lock left by a dead process', async () => {
    const dir = await dataDir();
    await writeFile(join(dir, 'db.lock'), '999999');
    await (await openDatabase({ dataDir: dir })).close();
  });

  it('starts its server again when it dies, while requests fail meanwhile', async () => {
    const dir = await dataDir();
    const log = quietLog();
    const db = await openDatabase({ dataDir: dir, log });
    try {
      await db.query('CREATE TABLE notes (body text)');
      const crashed = await postmasterPid(dir);
      process.kill(crashed, 'SIGKILL');
      const failures: unknown[] = [];
      let recovered = false;
      for (const deadline = Date.now() + 120_000; !recovered && Date.now() < deadline; )
        recovered = await db.query("INSERT INTO notes VALUES ('kept')").then(
          () => log.lines.length > 1,
          (error) => {
            failures.push(error);
            return new Promise((resolve) => setTimeout(() => resolve(false), 100));
          },
        );
      expect(recovered).toBe(true);
      expect(failures.length).toBeGreaterThan(0);
      expect(await db.query('SELECT DISTINCT body FROM notes')).toEqual([{ body: 'kept' }]);
      expect(log.lines).toEqual([
        expect.stringContaining('embedded PostgreSQL stopped'),
        'embedded PostgreSQL started again',
      ]);
      expect(await postmasterPid(dir)).not.toBe(crashed);
    } finally {
      await db.close();
    }
    expect(await postmastersOf(embeddedPaths(dir).cluster)).toEqual([]);
  });

  it('gives its password to no one else listening on its port while it is down', async () => {
    const dir = await dataDir();
    const log = quietLog();
    const db = await openDatabase({ dataDir: dir, log });
    try {
      const pidFile = await readFile(join(embeddedPaths(dir).cluster, 'postmaster.pid'), 'utf8');
      const [pid, , , port] = pidFile.split('\n').map(Number);
      const stopped = log.next('embedded PostgreSQL stopped');
      process.kill(pid as number, 'SIGKILL');
      await stopped;
      const fake = await fakePostgres(ASKS.cleartext, port);
      try {
        await log.next('embedded PostgreSQL did not start again');
        // The reason logged is the end of PostgreSQL's log, where it says why.
        expect(log.details.at(-1)).toMatchObject({
          reason: expect.stringContaining('could not create any TCP/IP sockets'),
        });
        await expect(db.query('SELECT 1')).rejects.toThrow();
        await expect(db.ping()).rejects.toThrow();
        expect(fake.connections()).toBeGreaterThanOrEqual(3);
        expect(fake.received().toString('latin1')).not.toContain('p');
      } finally {
        fake.server.close();
      }
      await log.next('embedded PostgreSQL started again');
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('stops a server it is starting again when stopped meanwhile', async () => {
    const dir = await dataDir();
    const cluster = embeddedPaths(dir).cluster;
    const log = quietLog();
    const server = await startEmbeddedPostgres(dir, log);
    // The server started again never lets the readiness check in: its start stays in flight.
    const hba = join(cluster, 'pg_hba.conf');
    await writeFile(hba, `host all all 127.0.0.1/32 reject\n${await readFile(hba, 'utf8')}`);
    const stopped = log.next('embedded PostgreSQL stopped');
    process.kill(await postmasterPid(dir), 'SIGKILL');
    await stopped;
    while ((await postmastersOf(cluster)).length === 0);
    await server.stop();
    expect(await postmastersOf(cluster)).toEqual([]);
  });

  it('refuses a data dir of the PGlite era, naming the command that moves it over', async () => {
    const dir = await dataDir();
    await mkdir(join(dir, 'db'));
    await writeFile(join(dir, 'db', 'PG_VERSION'), '17\n');
    const refused = await openDatabase({ dataDir: dir }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(LegacyDataDirError);
    expect((refused as Error).message).toContain(`pnpm db:migrate-from-pglite --data-dir ${dir}`);
    expect(await readdir(dir)).toEqual(['db']);
  });
});

describe.skipIf(process.getuid?.() !== 0)(
  'as root, on a data dir the server user cannot reach (skipped: only root switches users)',
  () => {
    /** `<0700 parent>/data`, and its cluster's home removed at the end. */
    async function closedDataDir(): Promise<string> {
      const parent = await dataDir();
      const dir = join(parent, 'data');
      cleanups.push(() => removeClusterHome(dir));
      return dir;
    }

    it("keeps the cluster in a home of root's that the data dir links to, leaving the parent closed", async () => {
      const dir = await closedDataDir();
      const log = quietLog();
      const db = await openDatabase({ dataDir: dir, log });
      const home = await clusterHomeOf(dir);
      try {
        expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
        expect(await readlink(embeddedPaths(dir).cluster)).toBe(join(home, 'postgres'));
        expect(log.infos).toEqual([{ cluster: join(home, 'postgres') }]);
        const owner = Number(execFileSync('id', ['-u', 'secadmin-postgres']));
        expect((await stat(home)).uid).toBe(0);
        expect((await stat(home)).mode & 0o777).toBe(0o710);
        expect((await stat(join(home, 'postgres'))).uid).toBe(owner);
        expect((await stat(join(home, 'postgres'))).mode & 0o777).toBe(0o700);
        expect(await readdir(home)).toEqual(['postgres']);
      } finally {
        await db.close();
      }
      expect((await stat(join(dir, '..'))).mode & 0o777).toBe(0o700);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    });

    it('runs a new cluster as a user of its own, and one made before as its owner', async () => {
      const dir = await dataDir();
      const cluster = embeddedPaths(dir).cluster;
      await (await openDatabase({ dataDir: dir, log: quietLog() })).close();
      expect((await stat(cluster)).uid).toBe(
        Number(execFileSync('id', ['-u', 'secadmin-postgres'])),
      );
      execFileSync('chown', ['-R', 'postgres:postgres', cluster]);
      const db = await openDatabase({ dataDir: dir, log: quietLog() });
      try {
        const [postmaster] = await postmastersOf(cluster);
        const status = await readFile(`/proc/${postmaster}/status`, 'utf8');
        expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(
          execFileSync('id', ['-u', 'postgres']).toString().trim(),
        );
        expect((await stat(dir)).gid).toBe(Number(execFileSync('id', ['-g', 'postgres'])));
      } finally {
        await db.close();
      }
    });

    it('refuses a home another user could have changed', async () => {
      const dir = await closedDataDir();
      await (await openDatabase({ dataDir: dir, log: quietLog() })).close();
      const home = await clusterHomeOf(dir);
      await chown(home, Number(execFileSync('id', ['-u', 'postgres'])), 0);
      const refused = await openDatabase({ dataDir: dir, log: quietLog() }).catch(
        (error: Error) => error,
      );
      expect((refused as Error).message).toContain(
        `${home} is not a directory that only root may change`,
      );
    });
  },
);
