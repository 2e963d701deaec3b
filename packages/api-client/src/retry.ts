import { SecadminConnectionError } from './errors.js';
import type { Fetch } from './transport.js';

/** When and how long the client waits to resend a request. */
export interface RetryOptions {
  /** Resends at most this many times (default 3; 0 disables retries). */
  maxRetries?: number;
  /**
   * The most one call waits between attempts, in total, in ms (default 60 000). A wait that would
   * go past it is not started: the last answer (thrown as an error) or error stands.
   */
  maxWaitMs?: number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (retry: RetryInfo) => void;
}

/** What {@link RetryOptions.onRetry} is told. */
export interface RetryInfo {
  /** The attempt that failed, from 1; the retry is attempt `attempt + 1`. */
  attempt: number;
  /** How long the client waits before the retry, in ms. */
  delayMs: number;
  /** The request's method, e.g. `POST`. */
  method: string;
  /** The request's URL. */
  url: string;
  /** The status of the answer that is retried (429 or 503), when there was one. */
  status?: number;
  /** Why there was no answer, when there was none. */
  error?: SecadminConnectionError;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** `Retry-After` in ms: seconds, or an HTTP date. Undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Resends a request after a 429, after a 503 or without an answer, when resending cannot apply it
 * twice: for a 429 (refused before it was processed) always, otherwise for an idempotent method or
 * a request with an `Idempotency-Key`. It waits `Retry-After` if the answer has one, else an
 * exponential backoff with jitter; the request's signal aborts the wait.
 */
export function withRetries(fetchImpl: Fetch, options: RetryOptions = {}): Fetch {
  const { maxRetries = 3, maxWaitMs = 60_000, onRetry } = options;
  return async (request) => {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= maxRetries;
      const outcome = await fetchImpl(canRetry ? request.clone() : request).then(
        (response) => ({ response }),
        (error: unknown) => ({ error }),
      );
      const delayMs = canRetry ? retryDelay(request, outcome, attempt) : undefined;
      if (delayMs === undefined || waited + delayMs > maxWaitMs) {
        if ('error' in outcome) throw outcome.error;
        return outcome.response;
      }
      const { method, url } = request;
      if ('error' in outcome) {
        onRetry?.({
          attempt,
          delayMs,
          method,
          url,
          error: outcome.error as SecadminConnectionError,
        });
      } else {
        onRetry?.({ attempt, delayMs, method, url, status: outcome.response.status });
        await outcome.response.body?.cancel();
      }
      await sleep(delayMs, request.signal);
      waited += delayMs;
    }
  };
}

function retryDelay(
  request: Request,
  outcome: { response: Response } | { error: unknown },
  attempt: number,
): number | undefined {
  const safe = IDEMPOTENT.has(request.method) || request.headers.has('Idempotency-Key');
  if ('error' in outcome)
    return outcome.error instanceof SecadminConnectionError && safe
      ? backoffMs(attempt)
      : undefined;
  const { status, headers } = outcome.response;
  if (status !== 429 && !(status === 503 && safe)) return undefined;
  return retryAfterMs(headers.get('Retry-After')) ?? backoffMs(attempt);
}

/** 0.5 s, 1 s, 2 s, … each between half and all of it, so that clients spread out. */
function backoffMs(attempt: number): number {
  return Math.round(500 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
