import type { ChainEntry, RedactionProof, VerifyResult } from './types.js';
import { ChainVerifier, type VerifierOptions } from './verify.js';

/** One step of a walk in seq order: a sealed entry, or a link whose entry retention removed. */
export type VerifierItem =
  | { entry: ChainEntry }
  | { removed: { seq: number; hash: string; prevHash: string } };

export type VerifierRequest =
  | { create: VerifierOptions }
  | { add: VerifierItem[] }
  | { unaccounted: true }
  | { redactions: RedactionProof[] }
  | { finish: true };

/** One reply per request, in order: `error` when it could not be done (the key schedule, say). */
export type VerifierReply =
  | { created: true }
  | { failed: boolean }
  | { unaccounted: string[] }
  | { result: VerifyResult }
  | { error: string };

/** What a worker thread's `parentPort` (or either end of a `MessageChannel`) offers. */
export interface VerifierPort {
  on(event: 'message', listener: (request: VerifierRequest) => void): unknown;
  postMessage(reply: VerifierReply): void;
}

/**
 * Drives a `ChainVerifier` by messages, so that a server checks its chain on another thread:
 * `create` once, `add` as many batches as it likes, `unaccounted` and `redactions` for the
 * redactions the walk could not account for, then `finish`. Requests are handled one
 * after another in the order they came, each answered with one reply.
 */
export function serveChainVerifier(port: VerifierPort): void {
  let verifier: ChainVerifier | undefined;
  const handle = async (request: VerifierRequest): Promise<VerifierReply> => {
    if ('create' in request) {
      verifier = await ChainVerifier.create(request.create);
      return { created: true };
    }
    if (!verifier) throw new Error('no verifier was created');
    if ('finish' in request) return { result: await verifier.finish() };
    if ('unaccounted' in request) return { unaccounted: verifier.unaccounted() };
    if ('redactions' in request) {
      await verifier.addRedactions(request.redactions);
      return { failed: verifier.failed };
    }
    for (const item of request.add) {
      if ('entry' in item) await verifier.add([item.entry]);
      else await verifier.removed(item.removed);
    }
    return { failed: verifier.failed };
  };
  let turn = Promise.resolve();
  port.on('message', (request) => {
    turn = turn.then(async () => {
      try {
        port.postMessage(await handle(request));
      } catch (error) {
        port.postMessage({ error: (error as Error).message });
      }
    });
  });
}
