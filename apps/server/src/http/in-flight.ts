import type { RequestHandler, Response } from 'express';

/**
 * Counts requests from arrival until their handler answers, even when the client left
 * first (closing the server only waits for open connections): shutdown waits for these
 * before it closes the database under them.
 */
export class InFlightRequests {
  private count = 0;
  private waiters: Array<() => void> = [];

  readonly track: RequestHandler = (_req, res, next) => {
    this.count++;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    let answered = false;
    res.end = ((...args: unknown[]) => {
      if (!answered) {
        answered = true;
        this.count--;
        if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
      }
      return end(...args);
    }) as Response['end'];
    next();
  };

  /** Resolves when no request is in flight, or after `timeoutMs` (an aborted download never answers). */
  async drained(timeoutMs: number): Promise<void> {
    if (this.count === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
