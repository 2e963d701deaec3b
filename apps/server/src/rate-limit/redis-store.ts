import { Redis } from 'ioredis';
import type { RateLimitStore } from './store.js';

/** Counters shared by every instance: INCR is atomic, so concurrent hits are exact. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 2,
      enableOfflineQueue: true,
      lazyConnect: false,
    });
    // Connection errors surface on the commands that need it; don't crash on idle errors.
    this.redis.on('error', () => {});
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const redisKey = `secadmin:rl:${key}:${windowStart}`;
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, windowMs * 2)
      .exec();
    const [error, count] = results?.[0] ?? [new Error('Redis returned no result'), null];
    if (error) throw error;
    return Number(count);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
