import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelay {
  /** 99th percentile and maximum of this process's event-loop delay while the work ran, in ms. */
  loopP99Ms: number;
  loopMaxMs: number;
  loopSamples: number;
  /** 99th percentile and maximum of the latency of `/healthz` requests sent one after another. */
  healthP99Ms: number;
  healthMaxMs: number;
  healthRequests: number;
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
};

/**
 * Runs `work` against an in-process server while measuring how long it holds the event loop
 * the server shares with this test: by `monitorEventLoopDelay` and by a concurrent `/healthz`.
 */
export async function measureLoopDelay(
  server: { url: string },
  work: () => Promise<void>,
): Promise<LoopDelay> {
  // Test servers keep their files under tmpdir(): the serial group's is on the disk (see
  // vitest.config.ts), so that file I/O weighs on the loop as it does in production.
  if (tmpdir().startsWith('/dev/shm'))
    throw new Error("event-loop delay is measured with the test servers' files on the disk");
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const health: number[] = [];
  let working = true;
  histogram.enable();
  const probe = (async () => {
    while (working) {
      const started = performance.now();
      const res = await fetch(`${server.url}/healthz`);
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`/healthz answered ${res.status}`);
      health.push(performance.now() - started);
    }
  })();
  try {
    await work();
  } finally {
    working = false;
    await probe;
    histogram.disable();
  }
  return {
    loopP99Ms: histogram.percentile(99) / 1e6,
    loopMaxMs: histogram.max / 1e6,
    loopSamples: histogram.count,
    healthP99Ms: p99(health),
    healthMaxMs: Math.max(0, ...health),
    healthRequests: health.length,
  };
}
