/** Counts hits in fixed 60-second windows. `hit` is atomic: N concurrent hits count N. */
export interface RateLimitStore {
  /** Counts one hit for `key` in the window starting at `windowStart`; returns the count. */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
  /** For readiness: `ok` (shared store answers), `degraded` (it does not), `memory` (none). */
  health(): Promise<RateLimitStoreHealth>;
  close(): Promise<void>;
}

export type RateLimitStoreHealth = 'ok' | 'degraded' | 'memory';

const WINDOW_MS = 60_000;

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Epoch ms at which the window resets. */
  resetAt: number;
  allowed: boolean;
}

export async function consume(
  store: RateLimitStore,
  key: string,
  limit: number,
  now = Date.now(),
): Promise<RateLimitResult> {
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const count = await store.hit(key, windowStart, WINDOW_MS);
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: windowStart + WINDOW_MS,
    allowed: count <= limit,
  };
}
