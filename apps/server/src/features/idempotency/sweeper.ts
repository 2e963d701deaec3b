import type { Logger } from 'pino';
import { type Job, pollLoop } from '../../lib/poll-loop.js';
import type { IdempotencyService } from './service.js';

const SWEEP_MS = 10 * 60 * 1000;

/** Deletes expired idempotency keys every 10 minutes. */
export function idempotencySweeper(
  service: Pick<IdempotencyService, 'sweep'>,
  logger: Pick<Logger, 'info' | 'error'>,
): Job {
  return pollLoop({
    name: 'idempotency sweep',
    everyMs: SWEEP_MS,
    logger,
    firstTurn: 'after-a-wait',
    turn: async () => {
      await service.sweep();
    },
  });
}
