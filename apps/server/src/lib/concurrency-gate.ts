import { Unavailable } from './errors.js';

export interface ConcurrencyGateOptions {
  /** How many may run at once. */
  concurrent: number;
  /** How many more may wait for a turn; one past them is refused at once. */
  queued: number;
  /** How long one waits for its turn before it is refused; without it, as long as it takes. */
  waitMs?: number;
  /** What a refused caller is told: what was busy, and what to do. */
  message: string;
  retryAfterSeconds: number;
}

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Lets at most `concurrent` calls run at once; the next `queued` wait their turn in order, each
 * for at most `waitMs`, so that a short burst is served; the rest get `Unavailable` at once.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: ConcurrencyGateOptions) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  private refusal(): Unavailable {
    return new Unavailable(this.options.message, this.options.retryAfterSeconds);
  }

  private enter(): Promise<void> {
    const { concurrent, queued, waitMs } = this.options;
    if (this.running < concurrent && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= queued) return Promise.reject(this.refusal());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: resolve,
        timer:
          waitMs === undefined
            ? undefined
            : setTimeout(() => {
                this.waiting.splice(this.waiting.indexOf(waiter), 1);
                reject(this.refusal());
              }, waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** The turn passes to the longest waiter, if any. */
  private leave(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running--;
      return;
    }
    clearTimeout(next.timer);
    next.admit();
  }
}
