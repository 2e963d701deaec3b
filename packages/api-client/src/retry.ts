export interface RetryOptions {
  /** Retries after a 429, at most this many times (default 3; 0 disables). */
  maxRetries?: number;
  /** Never waits longer than this for one retry, in ms (default 60 000). */
  maxDelayMs?: number;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds, or an HTTP date, as `Retry-After` allows; falls back to 1 s. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - now);
}

/**
 * Wraps a fetch so that a 429 is retried after its `Retry-After`, a bounded number of
 * times. A wait longer than `maxDelayMs` is not attempted: the 429 is returned as is.
 */
export function withRetryOn429(
  fetchImpl: (input: Request) => Promise<Response>,
  options: RetryOptions = {},
): (input: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? realSleep;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(attempt < maxRetries ? request.clone() : request);
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const delay = retryAfterMs(response.headers.get('retry-after'));
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
