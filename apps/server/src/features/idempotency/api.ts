import type { IdempotencyService } from './service.js';

/** What other features do to kept responses when what those show goes away, in their transaction. */
export type KeptResponses = Pick<IdempotencyService, 'forgetResponsesMentioning' | 'forgetKey'>;
