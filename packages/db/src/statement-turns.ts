import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';

/**
 * PGlite runs each statement synchronously on the event loop and hands its queue on to the next
 * statement through promises, which never give the loop back: the statements that several
 * requests queued (a search's pages of hits, its count, another request's insert) ran as one
 * stretch in which no other request, timer or signal was served. Starting every statement on a
 * turn of the event loop of its own bounds such a stretch by the longest single statement.
 */
export function statementPerTurn(pglite: PGlite): void {
  const onItsOwnTurn = <A extends unknown[], R>(call: (...args: A) => Promise<R>) => {
    return async (...args: A): Promise<R> => {
      await nextTurn();
      return call(...args);
    };
  };
  // The same two entry points as `stopAfterWriteFailure`: every statement goes through them.
  pglite.execProtocol = onItsOwnTurn(pglite.execProtocol.bind(pglite));
  pglite.execProtocolStream = onItsOwnTurn(pglite.execProtocolStream.bind(pglite));
}
