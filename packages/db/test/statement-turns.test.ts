import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { statementPerTurn } from '../src/statement-turns.js';

/** The longest time the event loop went without running a timer while `work` ran. */
async function longestStall(
  work: () => Promise<unknown>,
): Promise<{ stall: number; total: number }> {
  let stall = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { stall: Math.max(stall, performance.now() - last), total: performance.now() - started };
}

describe('statementPerTurn', () => {
  it('serves the event loop between statements queued together', async () => {
    const pglite = await PGlite.create();
    statementPerTurn(pglite);
    const statements = 8;
    const heavy =
      'SELECT count(*)::int AS n FROM generate_series(1, 70000) AS g(i) WHERE i % 7 = 0';
    await pglite.query(heavy);
    const { stall, total } = await longestStall(() =>
      Promise.all(Array.from({ length: statements }, () => pglite.query(heavy))),
    );
    // One statement at a time holds the loop, never the queue: a ratio, whatever the speed.
    expect(stall, JSON.stringify({ stall, total })).toBeLessThan(total / 3);
    expect((await pglite.query<{ n: number }>(heavy)).rows).toEqual([{ n: 10000 }]);
    await pglite.close();
  });
});
