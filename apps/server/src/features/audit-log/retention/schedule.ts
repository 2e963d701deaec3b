import type { Logger } from 'pino';
import type { LogRetention } from './service.js';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Applies retention now and then every hour, one run at a time, until the returned
 * function is called; that function resolves once a run in progress has ended.
 */
export function applyRetentionHourly(retention: LogRetention, logger: Logger): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      try {
        const { cutoff, removedEntries } = await retention.apply();
        if (removedEntries > 0)
          logger.info({ removedEntries, cutoff }, 'audit log retention applied');
      } catch (error) {
        logger.error({ err: error }, 'audit log retention failed; it is tried again in an hour');
      }
    });
  };
  run();
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    retention.stop();
    return running;
  };
}
