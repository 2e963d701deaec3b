import { Throttled, Unavailable } from './errors.js';

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
  /**
   * How many one caller (as `run` names it) may have running and waiting at once; one more is
   * a 429 with `callerMessage`, so that one caller cannot take every turn from the others.
   */
  perCaller?: { limit: number; message: string };
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
  /** Running and waiting calls by caller. */
  private readonly byCaller = new Map<string, number>();

  constructor(private readonly options: ConcurrencyGateOptions) {}

  async run<T>(work: () => Promise<T>, caller?: string): Promise<T> {
    if (caller !== undefined) this.count(caller);
    try {
      await this.enter();
      try {
        return await work();
      } finally {
        this.leave();
      }
    } finally {
      if (caller !== undefined) this.uncount(caller);
    }
  }

  private count(caller: string): void {
    const { perCaller, retryAfterSeconds } = this.options;
    const held = this.byCaller.get(caller) ?? 0;
    if (perCaller && held >= perCaller.limit)
      throw new Throttled(perCaller.message, retryAfterSeconds);
    this.byCaller.set(caller, held + 1);
  }

  private uncount(caller: string): void {
    const held = (this.byCaller.get(caller) ?? 1) - 1;
    if (held > 0) this.byCaller.set(caller, held);
    else this.byCaller.delete(caller);
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
