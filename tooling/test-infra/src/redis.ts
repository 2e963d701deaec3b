import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@secadmin/embedded-postgres';
import { atExit } from './at-exit.js';
import { guardAgainstOrphans } from './orphans.js';
import { NotInstalledError, type OwnedServer, type RunServer } from './servers.js';

const NOT_FOUND =
  'redis-server is not on PATH: install it (apt-get install redis-server, brew install redis) or set TEST_REDIS_URL';

/** Sends one inline command; resolves with the reply, or '' if the server closes or is down. */
function send(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(`${command}\r\n`));
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      reply += chunk;
      if (reply.endsWith('\r\n')) socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(reply));
  });
}

/**
 * A redis-server of its own, without persistence except across stop() and start(): stop()
 * saves a snapshot into its temporary directory, and start() loads it.
 */
export async function startRedis(): Promise<OwnedServer> {
  let version: string;
  try {
    version = /v=(\S+)/.exec(
      execFileSync('redis-server', ['--version'], { encoding: 'utf8' }),
    )?.[1] as string;
  } catch {
    throw new NotInstalledError(NOT_FOUND);
  }
  const dir = await mkdtemp(join(tmpdir(), 'secadmin-redis-'));
  const log = join(dir, 'redis.log');
  const port = await freePort();
  let child: ChildProcess | undefined;
  const cancelAtExit = atExit(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const orphans = guardAgainstOrphans({ signal: 'SIGKILL', remove: dir });

  const start = async () => {
    const args = ['--bind', '127.0.0.1', '--port', `${port}`, '--dir', dir, '--logfile', log];
    child = spawn('redis-server', [...args, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    orphans.set({ pid: child.pid as number, signal: 'SIGKILL', remove: dir });
    const started = Date.now();
    while ((await send(port, 'PING')) !== '+PONG\r\n') {
      if (child.exitCode !== null || Date.now() - started > 10_000) {
        child.kill('SIGKILL');
        child = undefined;
        throw new Error(`redis-server did not start: ${await readFile(log, 'utf8')}`);
      }
      await sleep(20);
    }
  };
  const stop = async () => {
    const exited = once(child as ChildProcess, 'exit');
    const reply = await send(port, 'SHUTDOWN SAVE');
    if (reply) throw new Error(`redis-server did not shut down: ${reply}`);
    await exited;
    child = undefined;
  };
  const remove = async () => {
    if (child) await stop();
    await rm(dir, { recursive: true, force: true });
    cancelAtExit();
    orphans.cancel();
  };

  try {
    await start();
    return { url: `redis://127.0.0.1:${port}`, version, start, stop, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The run's Redis: TEST_REDIS_URL if set, else a redis-server started for the run. */
export async function testRedis(): Promise<RunServer> {
  const named = process.env.TEST_REDIS_URL;
  if (named) {
    const { hostname, port } = new URL(named);
    return {
      url: named,
      summary: `test Redis: ${hostname}:${port || 6379} (TEST_REDIS_URL)`,
      release: async () => {},
    };
  }
  const server = await startRedis();
  return {
    url: server.url,
    summary: `test Redis: redis-server ${server.version} on ${new URL(server.url).host}, started for this run (set TEST_REDIS_URL to use your own)`,
    release: server.remove,
  };
}
