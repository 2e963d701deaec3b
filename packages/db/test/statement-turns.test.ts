import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { statementPerTurn } from '../src/statement-turns.js';

describe('statementPerTurn', () => {
  it('serves the event loop between statements queued together', async () => {
    const pglite = await PGlite.create();
    statementPerTurn(pglite);
    const heavy =
      'SELECT count(*)::int AS n FROM generate_series(1, 70000) AS g(i) WHERE i % 7 = 0';
    await pglite.query(heavy);
    // Turns of the event loop counted by a timer, noted as each statement ends: a count, not a
    // duration, so a loaded machine that pauses the process cannot fail it (a stall measured in
    // milliseconds did).
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    const endedAt: number[] = [];
    try {
      await Promise.all(
        Array.from({ length: 8 }, () => pglite.query(heavy).then(() => endedAt.push(turns))),
      );
    } finally {
      clearInterval(timer);
    }
    // One statement at a time holds the loop, never the queue: timers ran between any two.
    for (let i = 1; i < endedAt.length; i++)
      expect(endedAt[i], JSON.stringify(endedAt)).toBeGreaterThan(endedAt[i - 1] as number);
    expect((await pglite.query<{ n: number }>(heavy)).rows).toEqual([{ n: 10000 }]);
    await pglite.close();
  });
});
