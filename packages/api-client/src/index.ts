export type * from '@secadmin/api-types';
export {
  createSecadminClient,
  type SecadminClient,
  type SecadminClientOptions,
} from './client.js';
export {
  type ErrorDetail,
  SecadminApiError,
  SecadminConnectionError,
} from './errors.js';
export type { ExportHelpers, Exports, WaitOptions } from './export-helpers.js';
export type { Resources } from './generated/operations.js';
export type {
  Body,
  Data,
  JsonBody,
  PathParams,
  Query,
  RequestOptions,
} from './operation-types.js';
export type { PagedCall } from './paged-call.js';
export type {
  PagedPath,
  PageItem,
  PageParams,
  PaginateArgs,
  PaginateOptions,
} from './pagination.js';
export { type RetryInfo, type RetryOptions, retryAfterMs } from './retry.js';
export {
  type StreamEntriesMessage,
  type StreamMessageResult,
  type StreamTestMessage,
  StreamVerifier,
  type StreamVerifierOptions,
  type StreamVerifierState,
} from './stream-verifier.js';
export type { Fetch } from './transport.js';
export {
  fetchVerificationMaterial,
  type RedactionProof,
  type VerificationMaterial,
  type VerifyExportOptions,
  type VerifyResult,
  verifyExport,
} from './verify-export.js';
export {
  signWebhook,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  verifyWebhookSignature,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhook-signature.js';
