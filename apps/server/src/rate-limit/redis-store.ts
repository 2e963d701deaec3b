import { Redis } from 'ioredis';

/** docs/rate-limits.md: no request waits on Redis for more than this. */
const COMMAND_TIMEOUT_MS = 100;

/**
 * Counters shared by every instance: INCR is atomic, so concurrent hits are exact. A down Redis
 * fails fast (`FaultTolerantRateLimitStore` decides what then): no offline queue (a command while disconnected is refused at once), no retry of
 * a command, and every command bounded by `COMMAND_TIMEOUT_MS`; ioredis reconnects by itself.
 */
export class RedisRateLimitStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 1_000,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 50, 500),
    });
    // Connection errors surface on the commands that need them; don't crash on idle errors.
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

  /** Resolves once connected, or after `timeoutMs` without: a command before then would be refused. */
  async connected(timeoutMs: number): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
    });
  }

  /** Resolves when Redis answers a PING within the command timeout. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
