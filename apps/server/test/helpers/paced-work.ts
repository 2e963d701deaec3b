import { vi } from 'vitest';
import { Pacer } from '../../src/lib/pacer.js';

/** One computation of the server that paced itself with a `Pacer` of its own. */
export interface PacedComputation {
  /** The source file that paced, e.g. `lib/parse-json-in-slices.ts`. */
  site: string;
  paces: number;
  /** Of the intervals between two of its paces, those in which the event loop ran a callback. */
  turns: number;
}

/** The first `src/` file on the stack outside the pacer itself. */
function siteOf(stack: string | undefined): string {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const file = /\/src\/(.+?\.ts):\d+/.exec(line)?.[1];
    if (file && file !== 'lib/pacer.ts') return file;
  }
  return 'unknown';
}

/**
 * Runs `work` (requests to a server in this process) and tells how its computations shared the
 * event loop. Each pace finds its slice over, whatever the machine's speed, so each pace is a
 * point where the computation must let the loop turn; whether it did is seen by a `setImmediate`
 * scheduled at each pace, which has run by the next pace only if the loop turned in between.
 * What this counts are turns and paces, not milliseconds.
 */
export async function pacedWork(work: () => Promise<void>): Promise<PacedComputation[]> {
  const computations = new Map<Pacer, PacedComputation & { ran: boolean }>();
  const pace = Pacer.prototype.pace;
  const spy = vi.spyOn(Pacer.prototype, 'pace').mockImplementation(function (this: Pacer) {
    let computation = computations.get(this);
    if (!computation) {
      computation = { site: siteOf(new Error().stack), paces: 0, turns: 0, ran: false };
      computations.set(this, computation);
    } else if (computation.ran) computation.turns += 1;
    computation.paces += 1;
    const marker = computation;
    marker.ran = false;
    setImmediate(() => {
      marker.ran = true;
    });
    const realNow = performance.now;
    // A clock an hour ahead while the pacer reads it: its slice is over.
    performance.now = () => realNow.call(performance) + 3_600_000;
    try {
      return pace.call(this);
    } finally {
      performance.now = realNow;
    }
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return [...computations.values()].map(({ site, paces, turns }) => ({ site, paces, turns }));
}

/** The computations of `site` among `computations`. */
export const pacedAt = (computations: PacedComputation[], site: string) =>
  computations.filter((computation) => computation.site === site);
