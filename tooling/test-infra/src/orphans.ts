import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** What to do if the process that started a server dies without stopping it. */
export interface OrphanCleanup {
  /** The server's process, or the file its pid is in (read when cleaning up). */
  pid?: number;
  pidFile?: string;
  signal: NodeJS.Signals;
  /** A directory to remove after signalling. */
  remove?: string;
}

export interface OrphanGuard {
  /** Replaces what is done if this process dies (e.g. the server's new pid after a restart). */
  set(cleanup: OrphanCleanup): void;
  /** The server was stopped the ordinary way: nothing to do any more. */
  cancel(): void;
}

/**
 * The watchdog's program (plain JavaScript, so that it runs the same from the sources under a
 * test runner and from the build): one JSON line per change on stdin, whose end means the
 * parent is gone; then it signals what the parent left running and removes its directories.
 */
const WATCHDOG = `
const { readFileSync, rmSync } = require('node:fs');
const pending = new Map();
const pidOf = (c) => {
  if (c.pid) return c.pid;
  try { return Number(readFileSync(c.pidFile, 'utf8').split('\\n')[0]) || undefined; }
  catch { return undefined; }
};
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, cleanup } = JSON.parse(line);
  if (cleanup) pending.set(id, cleanup); else pending.delete(id);
});
lines.on('close', () => {
  for (const c of pending.values()) {
    const pid = pidOf(c);
    try { if (pid) process.kill(pid, c.signal); } catch {}
    if (c.remove) rmSync(c.remove, { recursive: true, force: true });
  }
});
`;

let watchdog: ChildProcess | undefined;
let nextId = 0;

/**
 * `atExit` runs in this process, which a SIGKILL (a test runner stopping its tasks, an OOM
 * kill) ends without running anything: a server it started would be left running, orphaned.
 * A watchdog process of its own session, outside the process group such signals reach, holds
 * the other end of a pipe and cleans up once the pipe closes, whatever ended this process.
 */
export function guardAgainstOrphans(cleanup: OrphanCleanup): OrphanGuard {
  if (!watchdog) {
    watchdog = spawn(process.execPath, ['-e', WATCHDOG], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // Neither the watchdog nor its pipe keeps this process alive; a watchdog that died only
    // takes this guard away, never the process that holds it.
    watchdog.unref();
    const stdin = watchdog.stdin as Socket;
    stdin.unref();
    stdin.on('error', () => {});
  }
  const id = nextId++;
  const send = (value: OrphanCleanup | null) =>
    watchdog?.stdin?.write(`${JSON.stringify({ id, cleanup: value })}\n`);
  send(cleanup);
  return { set: (next) => send(next), cancel: () => send(null) };
}
