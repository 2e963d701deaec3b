import type { LogCheckpoint, LogEntry, LogSigningKey } from '@secadmin/api-types';
import { type ExportedEntry, type VerifyResult, verifyChain } from '@secadmin/log-chain';
import type { SecadminClient } from './client.js';

export type { RedactionProof, VerifyResult } from '@secadmin/log-chain';

/** What an offline verification needs besides the entries; archive it beside your exports. */
export interface VerificationMaterial {
  /** Every checkpoint, oldest first. */
  checkpoints: LogCheckpoint[];
  /** The SPKI PEM of `GET /v1/logs/public-key` (the key active when it was fetched). */
  publicKeyPem: string;
  /** Every key that signed, with its `fromSeq` and rotation record (absent in older files). */
  publicKeys?: LogSigningKey[];
}

export interface VerifyExportOptions {
  /**
   * The key you expect, pinned outside the material (which anyone who rewrote the log could
   * have rewritten too): a SPKI PEM or a `SHA256:<hex>` fingerprint. Without it the material's
   * keys are taken on trust, and the result's `pinnedKey` is null.
   */
  expectedKey?: string;
}

/**
 * Verifies a JSON export (the parsed array of full entries) offline: each entry's field
 * digests and hash, the links between consecutive entries, the signed checkpoints that fall
 * in its range, and that every committed field an entry no longer holds is named by a
 * redaction record of a `user.deleted` entry proven to a checkpoint (the proofs the file's
 * entries carry in `redactionProofs`; a field stripped from the file is named by none). No request is sent.
 * An export of a time range holds a run of the chain only where its entries are consecutive:
 * verify an export of every event. Pin the key you expect (`options.expectedKey`): the
 * material's keys count only as far as their rotation records chain to it.
 */
export function verifyExport(
  entries: readonly LogEntry[],
  material: VerificationMaterial,
  options: VerifyExportOptions = {},
): Promise<VerifyResult> {
  return verifyChain({
    entries: entries as readonly ExportedEntry[],
    checkpoints: material.checkpoints,
    publicKeyPem: material.publicKeyPem,
    ...(material.publicKeys ? { publicKeys: material.publicKeys } : {}),
    ...(options.expectedKey ? { expectedKey: options.expectedKey } : {}),
  });
}

/** Fetches every checkpoint and the public keys, to verify exports now or later. */
export async function fetchVerificationMaterial(
  client: SecadminClient,
): Promise<VerificationMaterial> {
  const checkpoints: LogCheckpoint[] = [];
  for await (const checkpoint of client.paginate('/v1/logs/checkpoints', { limit: 100 }))
    checkpoints.push(checkpoint);
  checkpoints.sort((a, b) => a.seq - b.seq);
  const { publicKey, keys } = await client.logs.getPublicKey();
  return { checkpoints, publicKeyPem: publicKey, publicKeys: keys };
}
