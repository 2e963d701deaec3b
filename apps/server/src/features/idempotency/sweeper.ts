import type { Logger } from 'pino';
import type { IdempotencyService } from './service.js';

const SWEEP_MS = 10 * 60 * 1000;

/** Deletes expired idempotency keys every 10 minutes until the returned function is called. */
export function sweepIdempotencyKeys(service: IdempotencyService, logger: Logger): () => void {
  const timer = setInterval(() => {
    service.sweep().catch((error) => logger.error({ err: error }, 'idempotency sweep failed'));
  }, SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
