import { type PGlite, protocol } from '@electric-sql/pglite';

/*
 * PostgreSQL turns an error inside a critical section (writing the WAL, among others) into a
 * PANIC: the backend dies and the server recovers from the WAL. PGlite (one backend compiled to
 * WASM, no postmaster) does not promote it: the error unwinds out of `XLogWrite` with the
 * critical section still counted and `WALWriteLock` still held. The next commit's `XLogFlush`
 * then waits for that lock on a semaphore that never blocks in WASM and loops for good inside
 * one synchronous call, so the event loop, and every request, timer and signal handler with it,
 * stops (issue 12: disk full, 95 % CPU, SIGTERM ignored). Read from the spinning process:
 * WALWriteLock state 0xC0040000 (held exclusively, with waiters), `CritSectionCount` 4,
 * `MyProc->lwWaiting` 1.
 */

/**
 * disk_full, io_error: what a failed write of PGlite's files reports. A failed write of a data
 * file leaves no critical section open and PGlite usable, but it is the same full disk the
 * next WAL write meets: the instance stops at the first one, so readiness and the log say so
 * at once rather than after whichever write happens to wedge it.
 */
const FILE_WRITE_FAILURES = new Set(['53100', '58030']);

interface PostgresModule {
  _CritSectionCount?: number;
  getValue?: (address: number, type: 'i32') => number;
}

/** `CritSectionCount` of PGlite's backend: above 0 between statements, an error escaped one. */
function criticalSections(pglite: PGlite): number | undefined {
  // `mod` is PGlite's Emscripten module (protected); the counter is an exported data symbol.
  const mod = (pglite as unknown as { mod?: PostgresModule }).mod;
  if (mod?._CritSectionCount === undefined || !mod.getValue) return undefined;
  return mod.getValue(mod._CritSectionCount, 'i32');
}

/** 57P03 `cannot_connect_now`: callers treat the instance like an unreachable server. */
function failedError(): Error {
  const error = new protocol.messages.DatabaseError(
    'The embedded database stopped after a failed write of its files (disk full?); restart it once space is freed.',
    0,
    'error',
  );
  error.code = '57P03';
  return error;
}

/**
 * After an error that left PGlite's backend inside a critical section (the count read from its
 * memory), or a disk_full or io_error, never call into it again: that statement and every
 * later one (and `close()`) fail at once with 57P03 instead of spinning forever.
 * `onFailure` is called once, with PGlite's own error. Other errors pass through unchanged.
 */
export function stopAfterWriteFailure(
  pglite: PGlite,
  onFailure: (error: Error, criticalSections: number | undefined) => void,
): { failed: () => boolean } {
  let failed = false;
  const wedged = (error: unknown): boolean => {
    const code = (error as { code?: unknown })?.code;
    if (typeof code === 'string' && FILE_WRITE_FAILURES.has(code)) return true;
    return (criticalSections(pglite) ?? 0) > 0;
  };
  const guard = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      if (failed) throw failedError();
      try {
        return await call(...args);
      } catch (error) {
        if (!wedged(error)) throw error;
        failed = true;
        onFailure(error as Error, criticalSections(pglite));
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
