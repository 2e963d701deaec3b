export interface ChainHead {
  seq: number;
  hash: string;
}

export interface CheckpointRow {
  seq: number;
  hash: string;
  signature: string;
  createdAt: Date;
}

export interface ChainRow {
  seq: number;
  entryId: string;
  hash: string;
  prevHash: string;
  /** The version of the canonical form `hash` is computed over. */
  canonicalVersion: number;
}

export interface SigningKeyRow {
  fingerprint: string;
  publicKey: string;
  fromSeq: number;
  previousKeySignature: string | null;
  newKeySignature: string | null;
  createdAt: Date;
}
