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
export { sha256Hex } from './sha256.js';
export type { ChainEntry, Checkpoint, VerifyInput, VerifyResult } from './types.js';
export {
  ChainVerifier,
  digestProblem,
  importPublicKey,
  type VerifierOptions,
  verifyChain,
  verifyCheckpointSignature,
} from './verify.js';
