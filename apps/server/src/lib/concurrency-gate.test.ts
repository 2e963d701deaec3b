import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';
import { Unavailable } from './errors.js';

/** Work that runs until the test ends it. */
function held() {
  let end: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  let started = false;
  const work = () => {
    started = true;
    return new Promise<void>((resolve, reject) => {
      end = resolve;
      fail = reject;
    });
  };
  return {
    work,
    started: () => started,
    end: () => end(),
    fail: (error: Error) => fail(error),
  };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('a concurrency gate', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const gate = () =>
    new ConcurrencyGate({
      concurrent: 2,
      queued: 1,
      waitMs: 1_000,
      message: 'busy; retry',
      retryAfterSeconds: 3,
    });

  it('runs up to its limit at once, queues the next, and refuses past the queue at once', async () => {
    const g = gate();
    const [a, b, c, d] = [held(), held(), held(), held()];
    const runs = [a, b, c].map((h) => g.run(h.work));
    const refused = g.run(d.work).catch((error: unknown) => error);
    await settle();
    expect([a.started(), b.started(), c.started(), d.started()]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const error = await refused;
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Unavailable).message).toBe('busy; retry');
    expect((error as Unavailable).retryAfterSeconds).toBe(3);

    a.end();
    await settle();
    expect(c.started()).toBe(true);
    b.end();
    c.end();
    await Promise.all(runs);
  });

  it('refuses a waiter whose wait is over, and its place is free again', async () => {
    const g = gate();
    const [a, b, c, d] = [held(), held(), held(), held()];
    const runs = [a, b].map((h) => g.run(h.work));
    const waited = g.run(c.work).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(999);
    expect(c.started()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waited).toBeInstanceOf(Unavailable);

    const next = g.run(d.work);
    a.end();
    await settle();
    expect(c.started()).toBe(false);
    expect(d.started()).toBe(true);
    b.end();
    d.end();
    await Promise.all([...runs, next]);
  });

  it('passes the turn on when work fails', async () => {
    const g = gate();
    const [a, b, c] = [held(), held(), held()];
    const failed = g.run(a.work).catch((error: unknown) => error);
    const runs = [b, c].map((h) => g.run(h.work));
    await settle();
    expect(c.started()).toBe(false);
    a.fail(new Error('broke'));
    expect(((await failed) as Error).message).toBe('broke');
    await settle();
    expect(c.started()).toBe(true);
    b.end();
    c.end();
    await Promise.all(runs);
  });

  it('gives each caller its share: a flood of several callers keeps neither the turns nor the queue from another', async () => {
    const g = new ConcurrencyGate({
      concurrent: 3,
      queued: 4,
      message: 'busy; retry',
      retryAfterSeconds: 2,
      perCaller: { running: 1, waiting: 2, message: 'your share; retry' },
    });
    const flood = ['f1', 'f2', 'f3'].flatMap((caller) =>
      [held(), held(), held()].map((h) => ({
        h,
        caller,
        run: g.run(h.work, caller).catch((e) => e),
      })),
    );
    await settle();
    // One of each flooder runs; f1 and f2 fill the queue of four, yet f3 gets one place in it
    // (its first): its third is refused.
    expect(flood.filter(({ h }) => h.started())).toHaveLength(3);
    const victim = held();
    const asked = g.run(victim.work, 'victim');
    await settle();
    expect(victim.started()).toBe(false);
    // The next free turn goes to the caller that runs nothing, not to the longest waiter.
    flood[0]?.h.end();
    await settle();
    expect(victim.started()).toBe(true);
    victim.end();
    await asked;
    for (const { h } of flood) h.end();
    for (let i = 0; i < 6; i++) {
      await settle();
      for (const { h } of flood) h.end();
    }
    const outcomes = await Promise.all(flood.map(({ run }) => run));
    expect(outcomes.filter((o) => o instanceof Error)).toHaveLength(1);
  });
});
