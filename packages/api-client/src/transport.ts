import { SecadminConnectionError } from './errors.js';

/** The fetch the client sends each attempt through. */
export type Fetch = (request: Request) => Promise<Response>;

/**
 * Gives each attempt `timeoutMs` to answer (until the response headers; a body being read is not
 * cut off), and turns a missing answer (timeout, refused or reset connection, unknown host) into a
 * {@link SecadminConnectionError}. An abort through the request's own signal passes as it is.
 */
export function withTimeout(fetchImpl: Fetch, timeoutMs: number): Fetch {
  return async (request) => {
    const timeout = new AbortController();
    // setTimeout fires at once for delays past 2^31 - 1 ms; Infinity means no timeout.
    const timer =
      timeoutMs < 2 ** 31
        ? setTimeout(
            () =>
              timeout.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError')),
            timeoutMs,
          )
        : undefined;
    try {
      const signal = AbortSignal.any([request.signal, timeout.signal]);
      return await fetchImpl(new Request(request, { signal }));
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      const reason = timeout.signal.aborted ? timeout.signal.reason : error;
      throw new SecadminConnectionError(`${request.method} ${request.url}: ${describe(reason)}`, {
        cause: reason,
      });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** undici's `fetch failed` hides the reason (`connect ECONNREFUSED …`) in its cause. */
function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  // A refused dual-stack connect is an AggregateError with no message, only a code.
  return cause.message || String((cause as { code?: unknown }).code ?? cause.name);
}
