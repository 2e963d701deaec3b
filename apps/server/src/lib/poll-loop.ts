import { outsideRequests } from './state-versions.js';

/** A background job of the server: started once after the server listens, stopped at shutdown. */
export interface Job {
  start(): void;
  /** Ends the job: no turn starts after it, and it resolves once the current turn has ended. */
  stop(): Promise<void>;
  /** There is something new to do: a job waiting for its next turn runs it now. */
  kick?(): void;
}

/** Where a job's failures go (pino's logger is one). */
export interface JobLogger {
  error(fields: object, message: string): void;
  info(message: string): void;
}

export interface PollLoopOptions {
  /** Names the job in its log lines. */
  name: string;
  /** The wait between the end of one turn and the start of the next. */
  everyMs: number;
  /**
   * One turn; true when more work is waiting (the next turn starts without a wait). A turn
   * that throws is logged, once until a turn succeeds again, and the next one tries again.
   */
  turn: () => Promise<boolean> | Promise<void>;
  logger: JobLogger;
  /** Whether the first turn runs at `start()` (the default) or one wait later. */
  firstTurn?: 'at-start' | 'after-a-wait';
}

/** Runs `turn` over and over, one at a time, `everyMs` apart, until stopped. */
export function pollLoop(options: PollLoopOptions): Required<Job> {
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let wake: (() => void) | undefined;
  let failing = false;

  const wait = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.everyMs);
      timer.unref();
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function run(): Promise<void> {
    if (options.firstTurn === 'after-a-wait') await wait();
    while (running) {
      let again = false;
      try {
        again = (await outsideRequests(() => options.turn())) === true;
        if (failing) options.logger.info(`${options.name} recovered`);
        failing = false;
      } catch (error) {
        if (!failing) options.logger.error({ err: error }, `${options.name} failed; retrying`);
        failing = true;
      }
      if (running && !again) await wait();
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    kick() {
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
