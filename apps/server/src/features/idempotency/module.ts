import type { Logger } from 'pino';
import type { Job } from '../../lib/poll-loop.js';
import type { Store } from '../../storage/store.js';
import { idempotencyStep } from './http-step.js';
import { IdempotencyRepository } from './repository.js';
import { IdempotencyService } from './service.js';
import { idempotencySweeper } from './sweeper.js';

/** Kept responses of writes sent with an `Idempotency-Key`: the dispatch step and the sweeper. */
export function createIdempotency(
  store: Pick<Store, 'connection' | 'transaction'>,
  options: {
    /** The server secret: the subkeys of fingerprints and mention tags derive from it. */
    secret: string;
    /** The most bytes of kept idempotent responses per API key (docs/idempotency.md). */
    maxKeptBytes?: number | undefined;
    logger: Logger;
  },
) {
  const service = new IdempotencyService(
    store,
    new IdempotencyRepository(store.connection),
    options.secret,
    options.maxKeptBytes,
  );
  const jobs: Job[] = [idempotencySweeper(service, options.logger)];
  return { service, step: idempotencyStep(service), handlers: {}, jobs };
}
