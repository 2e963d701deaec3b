export type * from '@secadmin/api-types';
export {
  createSecadminClient,
  type ListItem,
  type ListPath,
  type ListQuery,
  type SecadminClient,
  type SecadminClientOptions,
} from './client.js';
export { type ErrorDetail, SecadminApiError } from './errors.js';
export { type RetryOptions, retryAfterMs } from './retry.js';
