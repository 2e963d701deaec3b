import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { OrphanCleanup } from './orphans.js';

/**
 * The watchdog process of `orphans.ts`: it reads what to clean up, one JSON line per change, on
 * stdin, whose end means its parent is gone (exited, or killed with SIGKILL, which runs no
 * handler). Then it stops what the parent left running and removes its directories.
 */
const pending = new Map<number, OrphanCleanup>();

function pidOf(cleanup: OrphanCleanup): number | undefined {
  if (cleanup.pid) return cleanup.pid;
  if (!cleanup.pidFile) return undefined;
  try {
    return Number(readFileSync(cleanup.pidFile, 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

function cleanUp(): void {
  for (const cleanup of pending.values()) {
    const pid = pidOf(cleanup);
    try {
      if (pid) process.kill(pid, cleanup.signal);
    } catch {
      // already gone
    }
    if (cleanup.remove) rmSync(cleanup.remove, { recursive: true, force: true });
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line) as { id: number; cleanup: OrphanCleanup | null };
  if (message.cleanup) pending.set(message.id, message.cleanup);
  else pending.delete(message.id);
});
lines.on('close', () => {
  cleanUp();
  process.exit(0);
});
