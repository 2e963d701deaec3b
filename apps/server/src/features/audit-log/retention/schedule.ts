import type { Logger } from 'pino';
import type { LogPartitions } from '../partitions/service.js';
import type { LogRetention } from './service.js';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Now and then every hour, one run at a time: creates the log's partitions ahead, then
 * applies retention (when configured), until the returned function is called; that
 * function resolves once a run in progress has ended.
 */
export function maintainLogHourly(
  partitions: LogPartitions,
  retention: LogRetention | undefined,
  logger: Logger,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running.then(async () => {
      try {
        await partitions.ensureAhead();
      } catch (error) {
        logger.error({ err: error }, 'audit log partitions not created; tried again in an hour');
      }
      if (!retention) return;
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
    retention?.stop();
    return running;
  };
}
