import { type PGlite, protocol } from '@electric-sql/pglite';

/**
 * disk_full and io_error: what a failed write of PostgreSQL's files (ENOSPC, EIO) reports.
 *
 * PostgreSQL turns such an error inside a critical section (writing the WAL) into a PANIC: the
 * backend dies and the server recovers from the WAL. PGlite (one backend compiled to WASM, no
 * postmaster) does not promote it: the error unwinds out of `XLogWrite` with the critical
 * section still counted and `WALWriteLock` still held. The next commit's `XLogFlush` then waits
 * for that lock on a semaphore that never blocks in WASM and loops for good inside one
 * synchronous call, so the event loop, and every request, timer and signal handler with it,
 * stops (issue 12: 95 % CPU, SIGTERM ignored). Read from the spinning process: WALWriteLock
 * state 0xC0040000 (held exclusively, waiters), `CritSectionCount` 4, `MyProc->lwWaiting` 1.
 */
const WEDGING_SQLSTATES = new Set(['53100', '58030']);

/** 57P03 `cannot_connect_now`: callers treat the instance like an unreachable server. */
function failedError(): Error {
  const error = new protocol.messages.DatabaseError(
    'The embedded database stopped after a failed write (disk full?); restart once space is freed.',
    0,
    'error',
  );
  error.code = '57P03';
  return error;
}

/**
 * After PGlite reports a failed write of its files, never call into it again: every later
 * statement (and `close()`) fails at once with 57P03 instead of spinning forever. The statement
 * that failed gets 57P03 too. `onFailure` is called once, with PGlite's own error.
 */
export function stopAfterWriteFailure(
  pglite: PGlite,
  onFailure: (error: Error) => void,
): { failed: () => boolean } {
  let failed = false;
  const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      if (failed) throw failedError();
      try {
        return await call(...args);
      } catch (error) {
        const code = (error as { code?: unknown })?.code;
        if (typeof code !== 'string' || !WEDGING_SQLSTATES.has(code)) throw error;
        if (!failed) onFailure(error as Error);
        failed = true;
        throw failedError();
      }
    };
  };
  // Every statement, the transactions' ones included, goes through these two (the instance's
  // own properties shadow the prototype's methods that PGlite's query paths call on `this`).
  pglite.execProtocol = guard(pglite.execProtocol.bind(pglite));
  pglite.execProtocolStream = guard(pglite.execProtocolStream.bind(pglite));
  return { failed: () => failed };
}
