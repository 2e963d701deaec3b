import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

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
    watchdog = spawn(
      process.execPath,
      [fileURLToPath(new URL('./orphan-watchdog.js', import.meta.url))],
      { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    // Neither the watchdog nor its pipe keeps this process alive.
    watchdog.unref();
    (watchdog.stdin as Socket).unref();
  }
  const id = nextId++;
  const send = (value: OrphanCleanup | null) =>
    watchdog?.stdin?.write(`${JSON.stringify({ id, cleanup: value })}\n`);
  send(cleanup);
  return { set: (next) => send(next), cancel: () => send(null) };
}
