import type { Logger } from 'pino';
import { Unavailable } from '../lib/errors.js';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore, RateLimitStoreHealth } from './store.js';

/** docs/rate-limits.md: what rate limiting does while Redis is unreachable. */
export type OnStoreError = 'open' | 'closed';

/** A slow answer on a loaded machine is not an outage: only failures this long without a success are. */
const OUTAGE_AFTER_MS = 1_000;

/**
 * Redis, and what to do while it does not answer: `open` counts in this process's memory
 * (limits become per instance) until Redis answers again; `closed` refuses with 503. Every
 * call still goes to Redis first, so the first one that succeeds ends the outage. One warning
 * per outage (failures for `OUTAGE_AFTER_MS` with no success between) and one recovery line,
 * however many requests fall in between; calls are numbered as they start, so that an answer
 * overtaken by a newer one (a success sent just before the outage, a failure sent just before
 * the recovery) does not flip the state back.
 */
export class FaultTolerantRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();
  /** When the failures without a success began; undefined while Redis answers. */
  private failingSince: number | undefined;
  /** Whether the outage has been logged (and its recovery must be). */
  private outage = false;
  private calls = 0;
  /** The newest call whose answer has been taken into account; older answers are stale. */
  private changedBy = 0;

  constructor(
    private readonly redis: Pick<RedisRateLimitStore, 'hit' | 'ping' | 'connected' | 'close'>,
    private readonly onError: OnStoreError,
    private readonly logger: Logger,
  ) {}

  /** Waits (a little) for the first connection, so that start-up does not begin in an outage. */
  async connect(): Promise<void> {
    await this.redis.connected(2_000);
    await this.health();
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const call = ++this.calls;
    let count: number;
    try {
      count = await this.redis.hit(key, windowStart, windowMs);
    } catch (error) {
      this.markDown(call, error);
      if (this.onError === 'closed')
        throw new Unavailable('The rate-limit store is unreachable; retry shortly.');
      return this.fallback.hit(key, windowStart);
    }
    this.markUp(call);
    return count;
  }

  async health(): Promise<RateLimitStoreHealth> {
    const call = ++this.calls;
    try {
      await this.redis.ping();
    } catch (error) {
      this.markDown(call, error);
      return 'degraded';
    }
    this.markUp(call);
    return 'ok';
  }

  async close(): Promise<void> {
    await this.redis.close();
  }

  private markDown(call: number, error: unknown): void {
    if (call < this.changedBy) return;
    this.changedBy = call;
    this.failingSince ??= Date.now();
    if (this.outage || Date.now() - this.failingSince < OUTAGE_AFTER_MS) return;
    this.outage = true;
    this.logger.warn(
      {
        err: { message: error instanceof Error ? error.message : String(error) },
        onStoreError: this.onError,
      },
      this.onError === 'open'
        ? 'rate-limit store (Redis) unreachable: counting in memory per instance until it answers'
        : 'rate-limit store (Redis) unreachable: refusing /v1 requests with 503 until it answers',
    );
  }

  private markUp(call: number): void {
    if (call < this.changedBy) return;
    this.changedBy = call;
    this.failingSince = undefined;
    if (!this.outage) return;
    this.outage = false;
    this.logger.info('rate-limit store (Redis) answers again: counting in Redis');
  }
}
