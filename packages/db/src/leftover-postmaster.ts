import { existsSync } from 'node:fs';
import { readFile, readlink, realpath, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive } from './process-alive.js';

/** Fast shutdown's bound before an immediate one: a hang guard, generous for a checkpoint. */
const FAST_SHUTDOWN_MS = 60_000;

async function exitOf(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/**
 * Whether `pid` is the postmaster of `cluster`: a postgres program whose working directory is
 * that cluster (the postmaster changes into its data dir). A pid reused since (after a reboot)
 * or a planted pid file may name another process, another cluster's postmaster included.
 */
async function isPostmasterOf(pid: number, cluster: string): Promise<boolean> {
  // Without /proc (macOS), the pid file is trusted as PostgreSQL itself trusts it.
  if (!existsSync('/proc/self/cwd')) return true;
  const [cwd, program, dir] = await Promise.all([
    readlink(`/proc/${pid}/cwd`).catch(() => undefined),
    readlink(`/proc/${pid}/exe`).catch(() => undefined),
    realpath(cluster),
  ]);
  return cwd === dir && program !== undefined && basename(program) === 'postgres';
}

/**
 * The postmaster of `cluster` that a killed service left running (its pid is the first line of
 * `postmaster.pid`), stopped with a fast shutdown, or an immediate one if that hangs; a pid file
 * naming a live process that is not it is stale, and removed. Called with the data dir's lock
 * held, so no running service owns it. PostgreSQL itself refuses a second postmaster on one
 * cluster; this makes the next start succeed instead of failing on that.
 */
export async function stopLeftoverPostmaster(cluster: string): Promise<void> {
  const pidFile = await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number.parseInt(pidFile?.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  if (!(await isPostmasterOf(pid, cluster))) {
    // PostgreSQL would refuse to start while the pid it names runs.
    await rm(join(cluster, 'postmaster.pid'));
    return;
  }
  process.kill(pid, 'SIGINT');
  if (await exitOf(pid, FAST_SHUTDOWN_MS)) return;
  process.kill(pid, 'SIGQUIT');
  await exitOf(pid, FAST_SHUTDOWN_MS);
}
