export {
  canonicalForm,
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  REDACTED,
  redactableFields,
} from './canonical.js';
export { jcs } from './jcs.js';
export {
  importPublicKey,
  isFingerprint,
  KeySchedule,
  keyFingerprint,
  rotationMessage,
  verifySignature,
} from './keys.js';
export { sha256Hex } from './sha256.js';
export type {
  ChainEntry,
  Checkpoint,
  SigningKeyRecord,
  VerifyInput,
  VerifyResult,
} from './types.js';
export {
  ChainVerifier,
  digestProblem,
  type VerifierOptions,
  verifyChain,
  verifyCheckpointSignature,
} from './verify.js';
