import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Logger, pino } from 'pino';

export interface Sample {
  status: number;
  retryAfter: string | null;
}

/**
 * Sequential requests from `workers` loops until `stop()` or `maxRequests`, whichever first:
 * bounded traffic to the test's own server, with each answer's status. A request that never
 * ends keeps `stop()` from ending: the test's timeout fails it.
 */
export function traffic(
  send: () => Promise<Response>,
  { workers = 2, maxRequests = 5_000 } = {},
): { samples: Sample[]; stop: () => Promise<Sample[]> } {
  const samples: Sample[] = [];
  let stopped = false;
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped && samples.length < maxRequests) {
      const res = await send();
      await res.arrayBuffer();
      samples.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      await sleep(5);
    }
  });
  return {
    samples,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return samples;
    },
  };
}

/** A logger whose lines the test can read back, parsed. */
export function capturingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
