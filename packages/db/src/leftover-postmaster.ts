import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Fast shutdown's bound before an immediate one: a hang guard, generous for a checkpoint. */
const FAST_SHUTDOWN_MS = 60_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exitOf(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** Whether `pid` runs postgres: after a reboot, a stale pid file may name another process. */
async function isPostgres(pid: number): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  // Without /proc (macOS), the pid file is trusted as PostgreSQL itself trusts it.
  return cmdline === undefined || cmdline.includes('postgres');
}

/**
 * The postmaster of `cluster` that a killed service left running (its pid is the first line of
 * `postmaster.pid`), stopped with a fast shutdown, or an immediate one if that hangs. Called with
 * the data dir's lock held, so no running service owns it. PostgreSQL itself refuses a second
 * postmaster on one cluster; this makes the next start succeed instead of failing on that.
 */
export async function stopLeftoverPostmaster(cluster: string): Promise<void> {
  const pidFile = await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const pid = Number.parseInt(pidFile?.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !(await isPostgres(pid))) return;
  process.kill(pid, 'SIGINT');
  if (await exitOf(pid, FAST_SHUTDOWN_MS)) return;
  process.kill(pid, 'SIGQUIT');
  await exitOf(pid, FAST_SHUTDOWN_MS);
}
