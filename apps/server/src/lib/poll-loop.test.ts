import { describe, expect, it } from 'vitest';
import { pollLoop } from './poll-loop.js';

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      error: (_: object, message: string) => void lines.push(`error: ${message}`),
      info: (message: string) => void lines.push(`info: ${message}`),
    },
  };
}

/** Counts turns; `reached(n)` resolves once the n-th turn has started. */
function turnCounter() {
  let turns = 0;
  const waiting = new Map<number, () => void>();
  return {
    count: () => turns,
    next: () => {
      turns++;
      waiting.get(turns)?.();
      return turns;
    },
    reached: (n: number) =>
      n <= turns ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(n, resolve)),
  };
}

describe('pollLoop', () => {
  it('runs a turn at start, runs again at once while work is waiting, and a kick cuts the wait short', async () => {
    const turns = turnCounter();
    const job = pollLoop({
      name: 'probe',
      everyMs: 600_000,
      logger: recorder().logger,
      turn: async () => turns.next() < 3,
    });
    job.start();
    await turns.reached(3);
    // A kick wakes a waiting loop only: kick until the loop has come to its wait.
    const kicking = setInterval(() => job.kick(), 5);
    await turns.reached(4);
    clearInterval(kicking);
    await job.stop();
    expect(turns.count()).toBe(4);
  });

  it('waits for the turn in progress when stopped, and starts none after', async () => {
    const turns = turnCounter();
    let release = () => {};
    let ended = false;
    const job = pollLoop({
      name: 'probe',
      everyMs: 1,
      logger: recorder().logger,
      turn: async () => {
        turns.next();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        ended = true;
        return true;
      },
    });
    job.start();
    await turns.reached(1);
    const stopped = job.stop().then(() => ended);
    release();
    expect(await stopped).toBe(true);
    expect(turns.count()).toBe(1);
  });

  it('logs a run of failures once, and the recovery', async () => {
    const { lines, logger } = recorder();
    const turns = turnCounter();
    const job = pollLoop({
      name: 'probe',
      everyMs: 1,
      logger,
      turn: async () => {
        if (turns.next() <= 3) throw new Error('down');
      },
    });
    job.start();
    await turns.reached(5);
    await job.stop();
    expect(lines).toEqual(['error: probe failed; retrying', 'info: probe recovered']);
  });

  it('waits before its first turn when asked to', async () => {
    const turns = turnCounter();
    const job = pollLoop({
      name: 'probe',
      everyMs: 600_000,
      logger: recorder().logger,
      firstTurn: 'after-a-wait',
      turn: async () => void turns.next(),
    });
    job.start();
    await job.stop();
    expect(turns.count()).toBe(0);
  });
});
