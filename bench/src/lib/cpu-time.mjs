// CPU time of a process and of a database's PostgreSQL backends, read from /proc (Linux):
// the time each thread spent on a CPU, in nanoseconds, whatever else the machine runs.
import { readdirSync, readFileSync } from 'node:fs';

/** @typedef {{ server: number, backends: Map<number, number>, at: number }} CpuSample */
/** @typedef {{ serverNs: number, backendsNs: number, wallMs: number }} CpuSpent */

/** @param {string} path a schedstat file: its first field is the time on a CPU, in ns */
function onCpuNs(path) {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[0]);
  } catch {
    return 0; // the thread or process ended meanwhile
  }
}

/**
 * Every thread of `pid` (V8's helpers and libuv's pool with the main thread).
 * @param {number} pid
 */
export const processCpuNs = (pid) =>
  readdirSync(`/proc/${pid}/task`).reduce(
    (sum, tid) => sum + onCpuNs(`/proc/${pid}/task/${tid}/schedstat`),
    0,
  );

/**
 * Samples the server process and, on PostgreSQL, the backends connected to its database
 * (`backendPids` lists them; each backend is one single-threaded process).
 * @param {number} serverPid
 * @param {() => Promise<number[]>} [backendPids]
 * @returns {() => Promise<CpuSample>}
 */
export function cpuMeter(serverPid, backendPids = async () => []) {
  return async () => {
    const pids = await backendPids();
    return {
      server: processCpuNs(serverPid),
      backends: new Map(pids.map((pid) => [pid, onCpuNs(`/proc/${pid}/schedstat`)])),
      at: performance.now(),
    };
  };
}

/**
 * CPU spent between two samples; a backend that appeared meanwhile counts from zero.
 * @param {CpuSample} a
 * @param {CpuSample} b
 * @returns {CpuSpent}
 */
export function spent(a, b) {
  let backendsNs = 0;
  for (const [pid, ns] of b.backends) backendsNs += ns - (a.backends.get(pid) ?? 0);
  return { serverNs: b.server - a.server, backendsNs, wallMs: b.at - a.at };
}

/**
 * Waits until the server and its backends are idle: a quarter second in which they spent
 * under `quietNs` (the sealer and the other background jobs finish what the requests left).
 * @param {() => Promise<CpuSample>} meter
 * @param {number} quietNs
 * @param {number} [timeoutMs]
 */
export async function settle(meter, quietNs, timeoutMs = 30_000) {
  let last = await meter();
  const deadline = last.at + timeoutMs;
  while (last.at < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await meter();
    const { serverNs, backendsNs } = spent(last, now);
    last = now;
    if (serverNs + backendsNs < quietNs) return last;
  }
  throw new Error(`the server did not go idle within ${timeoutMs} ms`);
}

/**
 * CPU spent from now until `stop()`, sampled every `everyMs`: a backend that ends meanwhile
 * (a pool closes idle connections) still counts up to its last sample, where two samples
 * alone would lose it.
 * @param {() => Promise<CpuSample>} meter
 * @param {number} [everyMs]
 */
export async function cpuWhile(meter, everyMs = 1000) {
  const first = await meter();
  /** @type {Map<number, number>} the last figure seen of every backend */
  const seen = new Map(first.backends);
  const track = (/** @type {CpuSample} */ sample) => {
    for (const [pid, ns] of sample.backends) if (ns > 0) seen.set(pid, ns);
  };
  const timer = setInterval(() => void meter().then(track, () => {}), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const last = await meter();
      track(last);
      return spent(first, { ...last, backends: seen });
    },
  };
}
