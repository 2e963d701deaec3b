import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atExit } from '../at-exit.js';

/** A ClickHouse HTTP interface started by startClickHouseHttp. */
export interface ClickHouseHttp {
  /** `http://user:password@127.0.0.1:port`, as `@clickhouse/client`'s `url` takes it. */
  url: string;
  /** The server's process. */
  pid: number;
  /** Stops the server and deletes its data. */
  stop(): Promise<void>;
  /** Kills the server's process with SIGKILL, as a crash would; its data is deleted once it is gone. */
  kill9(): void;
}

const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));

/**
 * The part of ClickHouse's HTTP interface that `@clickhouse/client` uses (ping, query, command,
 * exec, insert in text formats), answered by ClickHouse's own engine in chdb: for testing code
 * that talks to a ClickHouse server on a machine that has none. It runs in a process of its own,
 * on a temporary data directory, and ends with the process that started it.
 *
 * Requests are authenticated as ClickHouse does, against one user (`default` unless named) and
 * its password (a random one unless given). The client must leave request compression and
 * multipart parameters off, as they are by default.
 */
export async function startClickHouseHttp({
  user = 'default',
  password = randomBytes(16).toString('hex'),
}: {
  user?: string;
  password?: string;
} = {}): Promise<ClickHouseHttp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-clickhouse-'));
  // No execArgv: a test runner's flags are not the server's.
  const child = fork(SERVER, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const cancelAtExit = atExit(() => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  // However the server ends (stopped, killed, crashed), its data goes with it.
  const gone = new Promise<void>((resolve) => {
    child.once('exit', () => {
      cancelAtExit();
      rm(dataDir, { recursive: true, force: true }).then(resolve, resolve);
    });
  });

  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { port: number }).port));
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        reject(
          new Error(`the ClickHouse HTTP test server ended before listening (${signal ?? code})`),
        ),
      );
      child.send({ dataDir, user, password });
    });
    // Neither the server nor its channel keeps this process alive.
    child.unref();
    child.channel?.unref();
    return {
      url: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
      pid: child.pid as number,
      stop: async () => {
        child.ref();
        child.kill('SIGTERM');
        await gone;
      },
      kill9: () => {
        child.kill('SIGKILL');
      },
    };
  } catch (error) {
    if (child.pid !== undefined) {
      child.kill('SIGKILL');
      await gone;
    }
    throw error;
  }
}
