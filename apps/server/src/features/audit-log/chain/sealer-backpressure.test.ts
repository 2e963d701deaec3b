import { afterEach, describe, expect, it } from 'vitest';
import { logRow } from '../../../../test/helpers/fixtures.js';
import type { ChainState, QueuedEntry } from './repository.js';
import { Sealer } from './sealer.js';
import type { SigningKey } from './signing-key.js';

/**
 * One answer of the fake queue: how many entries were queued (the sealer looks at up to
 * `BATCH`, seals one and leaves the rest), or the read fails.
 */
type Answer = { queued: number } | { fails: Error };

const BATCH = 10;
const EMPTY_CHAIN: ChainState = { head: null, covered: 0, uncoveredSince: null };

function queuedEntry(n: number): QueuedEntry {
  const entry = logRow({
    id: `log_${n}`,
    timestamp: new Date(Date.UTC(2026, 0, 1)),
    lat: null,
    lng: null,
    result: 'success',
    origin: 'api',
    receivedAt: null,
    digests: {},
  });
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
  const control = { hasQueued: async () => true };
  const sealer = new Sealer({
    store: { transaction: (work) => work() },
    batchSize: BATCH,
    chain: {
      hasQueued: () => control.hasQueued(),
      unsealed: async () => [],
      trySealerLock: async () => true,
      seal: async () => true,
      pending: () =>
        new Promise((resolve, reject) => {
          reads.push((answer) =>
            'fails' in answer
              ? reject(answer.fails)
              : resolve({
                  state: EMPTY_CHAIN,
                  queued: [queuedEntry(++n)],
                  more: answer.queued > 1,
                  looked: Math.min(answer.queued, BATCH),
                }),
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
    control,
    /** Stops the sealer, answering the read it may be waiting on. */
    async shutdown(): Promise<void> {
      const stopped = watched(sealer.stop());
      for (const read of reads.splice(0)) read({ queued: 1 });
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
function watched<T>(promise: Promise<T>) {
  const state = { settled: false, promise };
  promise.then(() => {
    state.settled = true;
  });
  return state;
}

describe('writers wait for a sealer that finds a full batch or more queued', () => {
  let shutdown: (() => Promise<void>) | undefined;
  afterEach(() => shutdown?.());

  function started() {
    const scripted = scriptedSealer();
    shutdown = scripted.shutdown;
    scripted.sealer.start();
    return scripted;
  }

  it('lets writers through at once while the sealer keeps up', async () => {
    const { sealer, answer, nextRead } = started();
    await answer({ queued: BATCH - 1 });
    await nextRead();
    expect(await sealer.caughtUp(60_000)).toBe(false);
  });

  it('holds writers while a full batch is queued, and lets them go once less is', async () => {
    const { sealer, answer, nextRead } = started();
    await answer({ queued: BATCH });
    await nextRead();
    const waiting = watched(sealer.caughtUp(60_000));
    await answer({ queued: BATCH * 3 });
    await nextRead();
    expect(waiting.settled).toBe(false);
    // Entries left queued, but less than a batch's count (a batch cut at its byte bound).
    await answer({ queued: BATCH - 1 });
    expect(await waiting.promise).toBe(true);
  });

  it('lets writers go when a read fails, when the queue check fails or finds nothing, and after the longest wait', async () => {
    const { sealer, control, answer, nextRead } = started();
    await answer({ queued: BATCH });
    await nextRead();
    const onReadFailure = watched(sealer.caughtUp(60_000));
    await answer({ fails: new Error('the database is gone') });
    expect(await onReadFailure.promise).toBe(true);

    // The next turn reads again (behind is set once a read is pending), and the one after it
    // fails its queue check; the control is set before the answer that leads there.
    await nextRead();
    await answer({ queued: BATCH });
    await nextRead();
    const onCheckFailure = watched(sealer.caughtUp(60_000));
    control.hasQueued = async () => {
      throw new Error('the database is gone');
    };
    await answer({ queued: BATCH });
    expect(await onCheckFailure.promise).toBe(true);

    control.hasQueued = async () => true;
    await nextRead();
    await answer({ queued: BATCH });
    await nextRead();
    const onEmpty = watched(sealer.caughtUp(60_000));
    control.hasQueued = async () => false;
    await answer({ queued: BATCH });
    expect(await onEmpty.promise).toBe(true);

    control.hasQueued = async () => true;
    await nextRead();
    await answer({ queued: BATCH });
    await nextRead();
    expect(await sealer.caughtUp(20)).toBe(true);
  });

  it('lets writers go at stop, before the batch in progress ends, and holds none after', async () => {
    const scripted = started();
    const { sealer, answer, nextRead } = scripted;
    await answer({ queued: BATCH });
    await nextRead();
    const onStop = watched(sealer.caughtUp(60_000));
    const stopped = sealer.stop();
    expect(await onStop.promise).toBe(true);
    await answer({ queued: BATCH });
    await stopped;
    expect(await sealer.caughtUp(60_000)).toBe(false);
  });

  it('holds no writer once released for shutdown, whatever the queue', async () => {
    const { sealer, answer, nextRead } = started();
    await answer({ queued: BATCH });
    await nextRead();
    const waiting = watched(sealer.caughtUp(60_000));
    sealer.releaseWriters();
    expect(await waiting.promise).toBe(true);
    await answer({ queued: BATCH });
    await nextRead();
    expect(await sealer.caughtUp(60_000)).toBe(false);
  });
});
