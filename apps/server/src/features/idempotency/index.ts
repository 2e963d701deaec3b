import type { Store } from '../../storage/store.js';
import { idempotencyStep } from './http-step.js';
import { IdempotencyRepository } from './repository.js';
import { IdempotencyService } from './service.js';

export type { IdempotencyService } from './service.js';
export { idempotencySweeper } from './sweeper.js';

/** What other features do to kept responses when what those show goes away, in their transaction. */
export type KeptResponses = Pick<IdempotencyService, 'forgetResponsesMentioning' | 'forgetKey'>;

export function createIdempotency(
  store: Pick<Store, 'connection' | 'transaction'>,
  options: {
    /** The server secret: the subkeys of fingerprints and mention tags derive from it. */
    secret: string;
    /** The most bytes of kept idempotent responses per API key (docs/idempotency.md). */
    maxKeptBytes?: number | undefined;
  },
) {
  const service = new IdempotencyService(
    store,
    new IdempotencyRepository(store.connection),
    options.secret,
    options.maxKeptBytes,
  );
  return { service, step: idempotencyStep(service) };
}
