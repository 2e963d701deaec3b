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
   * Shares per caller (as `run` names it): at most `running` of its calls run at once and
   * `waiting` more wait; one more is a 429 with `message`. A turn that frees goes to the
   * longest waiter whose caller is below its running share, so one caller's burst never
   * holds every turn, nor the queue, from the others.
   */
  perCaller?: { running: number; waiting: number; message: string };
}

interface Waiter {
  caller: string;
  admit(): void;
  timer: NodeJS.Timeout | undefined;
}

/** The caller of calls that name none: they share one caller's shares. */
const ANYONE = '';

/**
 * Lets at most `concurrent` calls run at once; the next `queued` wait their turn, each for at
 * most `waitMs`, so that a short burst is served; the rest get `Unavailable` at once. With
 * `perCaller` shares, turns are shared between callers (see `enter` and `leave`); without, a
 * freed turn goes to the longest waiter.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly runningBy = new Map<string, number>();
  private readonly waitingBy = new Map<string, number>();
  /** When each caller with calls running or waiting last got a turn (a count of turns). */
  private readonly servedAt = new Map<string, number>();
  private turns = 0;

  constructor(private readonly options: ConcurrencyGateOptions) {}

  async run<T>(work: () => Promise<T>, caller = ANYONE): Promise<T> {
    await this.enter(caller);
    try {
      return await work();
    } finally {
      this.leave(caller);
    }
  }

  private refusal(): Unavailable {
    return new Unavailable(this.options.message, this.options.retryAfterSeconds);
  }

  private runs(caller: string): number {
    return this.runningBy.get(caller) ?? 0;
  }

  /** Whether `a`'s waiter goes before `b`'s (see `leave`). */
  private before(a: string, b: string): boolean {
    if (this.runs(a) !== this.runs(b)) return this.runs(a) < this.runs(b);
    return (this.servedAt.get(a) ?? -1) < (this.servedAt.get(b) ?? -1);
  }

  /** Whether `caller` may start one more now, turns being free. */
  private belowShare(caller: string): boolean {
    return this.runs(caller) < (this.options.perCaller?.running ?? Number.POSITIVE_INFINITY);
  }

  private enter(caller: string): Promise<void> {
    const { concurrent, queued, waitMs, perCaller, retryAfterSeconds } = this.options;
    // Calls wait only while no turn is free, or while their caller holds its share: one that
    // finds a free turn within its share starts at once.
    if (this.running < concurrent && this.belowShare(caller)) {
      this.start(caller);
      return Promise.resolve();
    }
    const waitingOfCaller = this.waitingBy.get(caller) ?? 0;
    if (perCaller && waitingOfCaller >= perCaller.waiting)
      return Promise.reject(new Throttled(perCaller.message, retryAfterSeconds));
    // With shares, a caller with nothing waiting always gets a place: callers that filled the
    // queue between them cannot keep another out of it.
    const firstOfCaller = perCaller !== undefined && waitingOfCaller === 0;
    if (this.waiting.length >= queued && !firstOfCaller) return Promise.reject(this.refusal());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        caller,
        admit: resolve,
        timer:
          waitMs === undefined
            ? undefined
            : setTimeout(() => {
                this.unqueue(waiter);
                reject(this.refusal());
              }, waitMs),
      };
      this.waiting.push(waiter);
      this.waitingBy.set(caller, waitingOfCaller + 1);
    });
  }

  private start(caller: string): void {
    this.running++;
    this.runningBy.set(caller, this.runs(caller) + 1);
    this.servedAt.set(caller, this.turns++);
  }

  /** Forgets a caller with nothing running or waiting. */
  private forgetIdle(caller: string): void {
    if (!this.runningBy.has(caller) && !this.waitingBy.has(caller)) this.servedAt.delete(caller);
  }

  private unqueue(waiter: Waiter): void {
    this.waiting.splice(this.waiting.indexOf(waiter), 1);
    const left = (this.waitingBy.get(waiter.caller) ?? 1) - 1;
    if (left > 0) this.waitingBy.set(waiter.caller, left);
    else this.waitingBy.delete(waiter.caller);
    this.forgetIdle(waiter.caller);
  }

  /**
   * Free turns pass to waiters whose callers are below their share: first those whose callers
   * run the fewest, then whose callers were served longest ago (round robin), then the longest
   * waiting.
   */
  private leave(caller: string): void {
    this.running--;
    const left = (this.runningBy.get(caller) ?? 1) - 1;
    if (left > 0) this.runningBy.set(caller, left);
    else this.runningBy.delete(caller);
    this.forgetIdle(caller);
    while (this.running < this.options.concurrent) {
      let next: Waiter | undefined;
      for (const waiter of this.waiting)
        if (
          this.belowShare(waiter.caller) &&
          (next === undefined || this.before(waiter.caller, next.caller))
        )
          next = waiter;
      if (!next) return;
      this.unqueue(next);
      clearTimeout(next.timer);
      this.start(next.caller);
      next.admit();
    }
  }
}
