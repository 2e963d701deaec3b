import type { Response } from 'express';
import { consume, type RateLimitResult, type RateLimitStore } from '../rate-limit/store.js';
import { ApiError } from './errors.js';

/** Requests without a valid key are limited per client IP at the free plan's rate. */
export const ANONYMOUS_LIMIT = 100;

function setRateLimitHeaders(res: Response, result: RateLimitResult): void {
  res.setHeader('X-RateLimit-Limit', String(result.limit));
  res.setHeader('X-RateLimit-Remaining', String(result.remaining));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(result.resetAt / 1000)));
}

/** Counts one request against `key`; throws the 429 when the window's budget is spent. */
export async function enforceRateLimit(
  store: RateLimitStore,
  res: Response,
  key: string,
  limit: number,
): Promise<void> {
  const result = await consume(store, key, limit);
  setRateLimitHeaders(res, result);
  if (!result.allowed) {
    const seconds = Math.max(1, Math.ceil((result.resetAt - Date.now()) / 1000));
    throw new ApiError(
      'rate_limited',
      `Rate limit exceeded; retry after ${seconds} seconds.`,
      undefined,
      seconds,
    );
  }
}
