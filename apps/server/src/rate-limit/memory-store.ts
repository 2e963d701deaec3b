import type { RateLimitStore, RateLimitStoreHealth } from './store.js';

/** One process's counters. Windows older than the current one are dropped as time passes. */
export class MemoryRateLimitStore implements RateLimitStore {
  private windowStart = 0;
  private counts = new Map<string, number>();

  async hit(key: string, windowStart: number): Promise<number> {
    if (windowStart > this.windowStart) {
      this.windowStart = windowStart;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  async health(): Promise<RateLimitStoreHealth> {
    return 'memory';
  }

  async close(): Promise<void> {}
}
