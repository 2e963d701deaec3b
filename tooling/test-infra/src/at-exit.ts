const cleanups = new Set<() => void>();

function runCleanups(): void {
  for (const cleanup of cleanups) cleanup();
  cleanups.clear();
}

let installed = false;
function install(): void {
  installed = true;
  process.on('exit', runCleanups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      runCleanups();
      // A listener replaces the default action: unless another one (vitest's) handles the
      // signal, end the process the way the signal would have.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * Runs `cleanup` (synchronous: it may run in an 'exit' handler) when the process exits or is
 * interrupted, so that no server or temporary directory outlives the run. Returns a function
 * that cancels it, for when the server was removed the ordinary way.
 */
export function atExit(cleanup: () => void): () => void {
  if (!installed) install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}
