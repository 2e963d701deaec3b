export {
  CANONICAL_VERSION,
  CANONICAL_VERSIONS,
  canonicalForm,
  canonicalFormV1,
  canonicalFormV2,
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  metadataKeys,
  presentFields,
  REDACTED,
  redactableFields,
} from './canonical.js';
export {
  digestProblem,
  entryProblem,
  fieldProblem,
  metadataOmitted,
  missingMetadata,
  truncatedAfter,
} from './entry-checks.js';
export { jcs } from './jcs.js';
export {
  importPublicKey,
  isFingerprint,
  KeySchedule,
  keyFingerprint,
  rotationMessage,
  verifySignature,
} from './keys.js';
export {
  absentFields,
  isRedactionRecord,
  REDACTION_EVENT,
  REDACTION_LIST_LIMIT,
  redactionsDigest,
  redactionsMetadata,
  redactionsOf,
} from './redactions.js';
export {
  serveChainVerifier,
  type VerifierItem,
  type VerifierPort,
  type VerifierReply,
  type VerifierRequest,
} from './serve.js';
export { sha256Hex } from './sha256.js';
export type {
  ChainEntry,
  Checkpoint,
  ExportedEntry,
  RedactionProof,
  RedactionRecord,
  RedactionSummary,
  SigningKeyRecord,
  VerifyInput,
  VerifyResult,
} from './types.js';
export {
  ChainVerifier,
  entryShapeProblem,
  type VerifierOptions,
  verifyChain,
  verifyCheckpointSignature,
} from './verify.js';
