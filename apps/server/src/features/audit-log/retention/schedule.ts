import type { Logger } from 'pino';
import { type Job, pollLoop } from '../../../lib/poll-loop.js';
import type { LogPartitions } from '../partitions/service.js';
import type { LogRetention } from './service.js';

const EVERY_MS = 60 * 60 * 1000;

/**
 * At start and then every hour, one run at a time: creates the log's partitions ahead, then
 * applies retention (when configured). Stopping lets a retention run end after its batch.
 */
export function hourlyLogMaintenance(
  partitions: Pick<LogPartitions, 'ensureAhead'>,
  retention: LogRetention | undefined,
  logger: Pick<Logger, 'info' | 'error'>,
): Job {
  const loop = pollLoop({
    name: 'audit log maintenance',
    everyMs: EVERY_MS,
    logger,
    turn: async () => {
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
    },
  });
  return {
    start: () => loop.start(),
    stop: () => {
      retention?.stop();
      return loop.stop();
    },
  };
}
