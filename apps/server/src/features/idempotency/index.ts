export type { KeptResponses } from './service.js';
export {
  IdempotencyService,
  type IdempotentRequest,
  type RunOutcome,
  type StoredResponse,
  type WorkOutcome,
} from './service.js';
export { idempotencySweeper } from './sweeper.js';
