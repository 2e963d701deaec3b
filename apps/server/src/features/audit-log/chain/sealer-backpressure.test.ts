import { afterEach, describe, expect, it } from 'vitest';
import type { CanonicalColumns } from './canonical-columns.js';
import type { ChainState, QueuedEntry } from './repository.js';
import { Sealer } from './sealer.js';
import type { SigningKey } from './signing-key.js';

/** One answer of the fake queue: entries are left queued (`more`), or the read fails. */
type Answer = { more: boolean } | { fails: Error };

const EMPTY_CHAIN: ChainState = { head: null, covered: 0, uncoveredSince: null };

function queuedEntry(n: number): QueuedEntry {
  const entry = {
    id: `log_${n}`,
    timestamp: new Date(Date.UTC(2026, 0, 1)),
    event: 'user.login',
    actorId: null,
    actorType: 'user',
    targetType: null,
    ip: null,
    userAgent: null,
    city: null,
    country: null,
    region: null,
    lat: null,
    lng: null,
    result: 'success',
    traceId: null,
    origin: 'api',
    ingestedBy: null,
    receivedAt: null,
    digests: {},
  } as unknown as CanonicalColumns;
  return { queueNo: String(n), entryId: entry.id, writtenAt: new Date(), entry };
}

/**
 * A sealer over a fake queue whose every read waits for the test to answer it: each answer
 * seals one entry and says whether more were left queued.
 */
function scriptedSealer() {
  const reads: ((answer: Answer) => void)[] = [];
  let readArrived: (() => void) | undefined;
  let n = 0;
  const sealer = new Sealer({
    store: { transaction: (work) => work() },
    chain: {
      hasQueued: async () => true,
      unsealed: async () => [],
      trySealerLock: async () => true,
      seal: async () => true,
      pending: () =>
        new Promise((resolve, reject) => {
          reads.push((answer) =>
            'fails' in answer
              ? reject(answer.fails)
              : resolve({ state: EMPTY_CHAIN, queued: [queuedEntry(++n)], more: answer.more }),
          );
          readArrived?.();
        }),
    },
    signingKeys: { active: async () => 'SHA256:test' },
    key: { fingerprint: 'SHA256:test', signCheckpoint: () => 'signature' } as unknown as SigningKey,
    logger: { error: () => {}, info: () => {} },
    pollMs: 5,
  });
  return {
    sealer,
    /** Stops the sealer, answering the read it may be waiting on. */
    async shutdown(): Promise<void> {
      const stopped = watched(sealer.stop());
      for (const read of reads.splice(0)) read({ more: false });
      await stopped.promise;
    },
    /** Waits for the sealer's next read of the queue, then answers it. */
    async answer(answer: Answer): Promise<void> {
      if (reads.length === 0) await new Promise<void>((resolve) => (readArrived = resolve));
      readArrived = undefined;
      (reads.shift() as (answer: Answer) => void)(answer);
    },
    /** Waits until the sealer reads again (the answer before it has been acted on). */
    async nextRead(): Promise<void> {
      if (reads.length === 0) await new Promise<void>((resolve) => (readArrived = resolve));
    },
  };
}

/** A promise and whether it has settled yet. */
function watched(promise: Promise<void>) {
  const state = { settled: false, promise };
  promise.then(() => {
    state.settled = true;
  });
  return state;
}

describe('writers wait for a sealer that is a batch or more behind', () => {
  let shutdown: (() => Promise<void>) | undefined;
  afterEach(() => shutdown?.());

  it('lets writers through at once while the sealer keeps up', async () => {
    const scripted = scriptedSealer();
    const { sealer, answer, nextRead } = scripted;
    shutdown = scripted.shutdown;
    sealer.start();
    await answer({ more: false });
    await nextRead();
    const waited = watched(sealer.caughtUp(60_000));
    await waited.promise;
  });

  it('holds writers while batches leave more queued, and lets them go once one leaves less', async () => {
    const scripted = scriptedSealer();
    const { sealer, answer, nextRead } = scripted;
    shutdown = scripted.shutdown;
    sealer.start();
    await answer({ more: true });
    await nextRead();
    const waiting = watched(sealer.caughtUp(60_000));
    await answer({ more: true });
    await nextRead();
    expect(waiting.settled).toBe(false);
    await answer({ more: false });
    await waiting.promise;
  });

  it('lets writers go when sealing fails, when the sealer stops, and after the longest wait', async () => {
    const scripted = scriptedSealer();
    const { sealer, answer, nextRead } = scripted;
    shutdown = scripted.shutdown;
    sealer.start();
    await answer({ more: true });
    await nextRead();
    const onFailure = watched(sealer.caughtUp(60_000));
    await answer({ fails: new Error('the database is gone') });
    await onFailure.promise;

    await nextRead();
    await answer({ more: true });
    await nextRead();
    const bounded = watched(sealer.caughtUp(20));
    await bounded.promise;
    const onStop = watched(sealer.caughtUp(60_000));
    expect(onStop.settled).toBe(false);
    await scripted.shutdown();
    await onStop.promise;
  });
});
