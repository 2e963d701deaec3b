/**
 * A full audit-log entry as the secadmin API represents it (`GET /v1/logs/{id}`, the JSON
 * export), so an export's entries can be passed as they are.
 */
export interface ChainEntry {
  id: string;
  /** ISO 8601 UTC with milliseconds, as the API shows it: `2026-11-25T21:00:00.123Z`. */
  timestamp: string;
  event: string;
  actor: { type: string; id?: string | null; email?: string | null };
  target?: { type?: string | null; id?: string | null };
  context?: {
    ip?: string | null;
    userAgent?: string | null;
    location?: {
      city?: string | null;
      country?: string | null;
      region?: string | null;
      coordinates?: { lat: number; lng: number } | null;
    };
  };
  result: string;
  traceId?: string | null;
  origin: string;
  ingestedBy?: string | null;
  receivedAt?: string | null;
  metadata?: Record<string, unknown>;
  /** Position in the chain, from 1; `null` until the entry is sealed. */
  seq: number | null;
  /** Lowercase hex SHA-256 of `prevHash` + "\n" + the canonical form; `null` until sealed. */
  hash: string | null;
  /** The previous entry's hash (64 zeros for seq 1); `null` until sealed. */
  prevHash: string | null;
  /** Path → salted digest of each redactable field the entry had when it was written. */
  digests: Record<string, string>;
  /** Path → salt of each redactable field still present (redaction removes the salt). */
  salts: Record<string, string>;
  /**
   * The version of the canonical form the entry's hash is computed over: 2 for entries
   * sealed now, 1 for older ones (absent, as in exports made before v2: 1); `null` until
   * the entry is sealed.
   */
  canonicalVersion?: number | null;
}

/** A signed checkpoint as `GET /v1/logs/checkpoints` lists it. */
export interface Checkpoint {
  seq: number;
  hash: string;
  /** Standard base64 (with padding) of the Ed25519 signature over `checkpointMessage`. */
  signature: string;
  createdAt?: string;
}

/**
 * An entry as a JSON export holds it: a full entry, and when redactions removed some of its
 * fields, the ids of the `user.deleted` entries that name it (`redactedBy`) and, on the first
 * entry of the file each of those names, its proof (`redactionProofs`).
 */
export type ExportedEntry = ChainEntry & {
  redactedBy?: readonly string[];
  redactionProofs?: readonly RedactionProof[];
};

export interface VerifyInput {
  /**
   * The entries; the redaction proofs they carry (`redactionProofs`, a JSON export's) count
   * beside the `user.deleted` entries among them.
   */
  entries: readonly ExportedEntry[];
  checkpoints: readonly Checkpoint[];
  /** The SPKI PEM of `GET /v1/logs/public-key`: the only key when `publicKeys` is not given. */
  publicKeyPem: string;
  /**
   * Every key that signed checkpoints, with the seq it signs from and its rotation record
   * (`GET /v1/logs/public-key`'s `keys`). Default: `publicKeyPem` from seq 1.
   */
  publicKeys?: readonly SigningKeyRecord[];
  /**
   * The key you expect, pinned outside the material: a SPKI PEM or a `SHA256:<hex>`
   * fingerprint. The keys given are trusted only as far as their rotation records chain to
   * it. Without it, they are taken as given (and `pinnedKey` is null).
   */
  expectedKey?: string;
  /**
   * The hash the first entry must follow. Default: 64 zeros when the first entry is seq 1,
   * otherwise the first entry's own `prevHash` (checked against a checkpoint at the seq
   * before it, if one is given).
   */
  expectFirstPrevHash?: string;
}

/** One entry a redaction altered, as its `user.deleted` entry names it. */
export interface RedactionRecord {
  /** The altered entry's id. */
  id: string;
  /** Its seq, or null when it was not sealed yet at the time of the redaction. */
  seq: number | null;
  /** The committed fields the redaction removed (digest paths), sorted. */
  fields: string[];
}

/** In place of the list, when a redaction altered more entries than a list holds. */
export interface RedactionSummary {
  count: number;
  /** Lowercase hex SHA-256 of the JCS text of the list of records (`redactionsDigest`). */
  sha256: string;
}

/**
 * A sealed `user.deleted` entry with what proves it part of the chain: the canonical forms
 * of the entries after it, up to and including the next checkpoint's seq, so that its hash
 * leads to that signed checkpoint's hash; `checkpoint` that checkpoint, for a verifier whose
 * checkpoints do not reach it. `records` is its list of records when its metadata holds a
 * summary.
 */
export interface RedactionProof {
  entry: ChainEntry;
  following: readonly string[];
  checkpoint?: Checkpoint;
  records?: readonly RedactionRecord[];
}

/** One checkpoint signing key and the seqs it covers (`GET /v1/logs/public-key`'s `keys`). */
export interface SigningKeyRecord {
  /** SPKI PEM. */
  publicKey: string;
  /** `SHA256:` + lowercase hex SHA-256 of the SPKI DER; checked against `publicKey` if given. */
  fingerprint?: string;
  /** Checkpoints at this seq and after (up to the next key's `fromSeq`) are signed by this key. */
  fromSeq: number;
  /**
   * For every key but the first: the previous key's and this key's base64 Ed25519 signatures
   * over `rotationMessage(fromSeq, previousFingerprint, fingerprint)`.
   */
  rotation?: { previousKeySignature: string; newKeySignature: string } | null;
}

export interface VerifyResult {
  valid: boolean;
  /** How many sealed entries were checked before the first failure (all when valid). */
  checkedEntries: number;
  /** The highest checkpoint that was verified against the entries, or null. */
  lastCheckpointSeq: number | null;
  firstInvalidSeq?: number;
  reason?: string;
  /** `verifyChain` only: the fingerprint of the pinned key, or null when none was pinned. */
  pinnedKey?: string | null;
  /**
   * `verifyChain` only: entries given without a seal (`seq: null`). Nothing vouches for
   * them: they were not checked.
   */
  unsealedEntries?: number;
  /**
   * `verifyChain` only: sealed entries after the last checkpoint verified against them. Their
   * hashes link up, but no signature covers them yet: anyone holding the file could have
   * appended or rewritten them.
   */
  uncoveredEntries?: number;
  /**
   * `verifyChain` only: how many entries the checkpoints prove to exist after the last
   * sealed entry given (the newest checkpoint's seq minus that entry's seq): the run stops
   * before the chain's head as the checkpoints know it. A whole-log export cut off at the
   * head has some; so has an export of an earlier time range.
   */
  truncatedEntries?: number;
  /**
   * `verifyChain` only, and only when true: no sealed entry given shows `metadata` (an export
   * made with `includeMetadata: false`), so the metadata digests were taken as they are —
   * the export cannot show whether metadata was stripped from it. (When some entries show
   * metadata, every one must.)
   */
  metadataOmitted?: true;
  /**
   * When some: how many committed fields the entries checked no longer hold, each named by
   * a redaction record (`verifyChain` and the server).
   */
  redactedFields?: number;
}
