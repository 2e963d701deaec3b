export type { KeptResponses } from './service.js';
export {
  type IdempotentRequest,
  IdempotencyService,
  type RunOutcome,
  type StoredResponse,
  type WorkOutcome,
} from './service.js';
export { sweepIdempotencyKeys } from './sweeper.js';
