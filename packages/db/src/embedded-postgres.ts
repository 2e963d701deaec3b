import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, type OsUser } from '@secadmin/embedded-postgres';
import { ensureCluster } from './cluster-creation.js';
import { clusterUser, embeddedPaths, reachableCluster } from './cluster-place.js';
import { stopLeftoverPostmaster } from './leftover-postmaster.js';
import { runnableBinaries } from './runnable-binaries.js';
import { ScramOnlyClient } from './scram-only-client.js';

/** What the embedded server reports while it runs: a pino logger fits. */
export interface EmbeddedPostgresLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface EmbeddedPostgres {
  /** How to reach it, as any server: `postgres://postgres:<password>@127.0.0.1:<port>/postgres`. */
  url: string;
  /** Fast shutdown (open transactions are rolled back); resolves once the server exited. */
  stop(): Promise<void>;
}

/** Waits after the server died before starting it again: doubled each time, up to the last. */
const RESTART_BACKOFF_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000];
/** A hang guard for a start (crash recovery included), not a speed target. */
const READY_WITHIN_MS = 120_000;

/**
 * Starts the PostgreSQL server of the data dir (made by initdb on first start) on a spare port
 * of 127.0.0.1, password auth only, no Unix socket; a server left running by a service that was
 * killed is stopped first. The caller holds the data dir's lock. If the server dies while the
 * service runs, it is started again with a backoff, on the same port; meanwhile connections are
 * refused, which the service answers with 503s.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: EmbeddedPostgresLog,
): Promise<EmbeddedPostgres> {
  const user = await clusterUser(dataDir, (message) => log.warn({}, message));
  const paths = { ...embeddedPaths(dataDir), cluster: await reachableCluster(dataDir, user) };
  const binaries = await runnableBinaries(user);
  await stopLeftoverPostmaster(paths.cluster);
  await ensureCluster(paths, binaries.initdb, user);
  log.info({ cluster: paths.cluster }, 'starting the embedded PostgreSQL');
  const password = (await readFile(paths.password, 'utf8')).trim();

  let port = await freePort();
  let child = await startServer(binaries.postgres, paths, port, password, user).catch(
    async (error: Error) => {
      // The port was taken between picking and binding: one more try on another.
      if (!/could not bind|could not create any TCP\/IP sockets/.test(error.message)) throw error;
      port = await freePort();
      return startServer(binaries.postgres, paths, port, password, user);
    },
  );
  let stopping = false;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  /** A start again in flight, and the server it spawned: `stop()` stops that one too. */
  let restarting: Promise<void> | undefined;
  let spawned: ChildProcess | undefined;
  const stopAtExit = () => {
    child.kill('SIGINT');
    spawned?.kill('SIGINT');
  };
  process.on('exit', stopAtExit);

  const supervise = (server: ChildProcess) =>
    server.once('exit', (code, signal) => {
      if (stopping) return;
      const delay = RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)] ?? 0;
      failures++;
      log.error(
        { code, signal, restartInMs: delay, log: paths.log },
        'embedded PostgreSQL stopped; database requests get 503 until it is started again',
      );
      const restart = () => {
        restartTimer = undefined;
        if (stopping) return;
        const started = startServer(binaries.postgres, paths, port, password, user, (server) => {
          spawned = server;
        });
        restarting = started.then(
          async (server) => {
            if (stopping) {
              await stopServer(server);
              return;
            }
            child = server;
            failures = 0;
            log.warn({ port }, 'embedded PostgreSQL started again');
            supervise(server);
          },
          (error: Error) => {
            if (stopping) return;
            const next = RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)] ?? 0;
            failures++;
            log.error(
              { reason: endOf(error.message, 1_000), retryInMs: next },
              'embedded PostgreSQL did not start again; retrying',
            );
            restartTimer = setTimeout(restart, next);
          },
        );
        restarting.finally(() => {
          spawned = undefined;
        });
      };
      restartTimer = setTimeout(restart, delay);
    });
  supervise(child);

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      process.off('exit', stopAtExit);
      if (spawned) await stopServer(spawned);
      await restarting;
      await stopServer(child);
    },
  };
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill('SIGINT');
  await exited;
}

/**
 * The postmaster as a child of this process (its own process group: a Ctrl-C reaches the
 * service, which stops it in order), its output appended to the log; resolves once it accepts
 * connections.
 */
async function startServer(
  postgres: string,
  paths: { cluster: string; log: string },
  port: number,
  password: string,
  user: OsUser | undefined,
  onSpawn?: (child: ChildProcess) => void,
): Promise<ChildProcess> {
  const logFd = openSync(paths.log, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(
      postgres,
      [
        ...['-D', paths.cluster, '-p', String(port)],
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ],
      {
        stdio: ['ignore', logFd, logFd],
        detached: true,
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
  } finally {
    closeSync(logFd);
  }
  onSpawn?.(child);
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const client = new ScramOnlyClient({ host: '127.0.0.1', port, user: 'postgres', password });
    try {
      await client.connect();
      const ours = await servesCluster(client, paths.cluster);
      await client.end();
      if (ours && child.exitCode === null && child.signalCode === null) return child;
    } catch {
      await client.end().catch(() => {});
    }
    if (spawnError) throw new Error(`embedded PostgreSQL did not start: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`embedded PostgreSQL did not start: ${await logTail(paths.log)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      throw new Error(
        `embedded PostgreSQL did not accept connections: ${await logTail(paths.log)}`,
      );
    }
    await sleep(50);
  }
}

/** Whether the server `client` reached runs `cluster`, not another one on the same port. */
async function servesCluster(client: ScramOnlyClient, cluster: string): Promise<boolean> {
  const { rows } = await client.query<{ dir: string }>(
    "SELECT current_setting('data_directory') AS dir",
  );
  const served = await realpath(rows[0]?.dir ?? '').catch(() => undefined);
  return served === (await realpath(cluster));
}

/** The end of `text`, where a failure's cause is: its last whole lines within `max` characters. */
function endOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.slice(-max);
  return end.slice(end.indexOf('\n') + 1);
}

async function logTail(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').slice(-15).join('\n');
}
