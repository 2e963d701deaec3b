import type { LogCheckpoint, LogEntry } from '@secadmin/api-types';
import { type ChainEntry, type VerifyResult, verifyChain } from '@secadmin/log-chain';
import type { SecadminClient } from './client.js';

export type { VerifyResult } from '@secadmin/log-chain';

/** What an offline verification needs besides the entries; archive it beside your exports. */
export interface VerificationMaterial {
  /** Every checkpoint, oldest first. */
  checkpoints: LogCheckpoint[];
  /** The SPKI PEM of `GET /v1/logs/public-key`. */
  publicKeyPem: string;
}

/**
 * Verifies a JSON export (the parsed array of full entries) offline: each entry's field
 * digests and hash, the links between consecutive entries, and the signed checkpoints
 * that fall in its range. No request is sent. An export of a time range holds a run of the
 * chain only where its entries are consecutive: verify an export of every event.
 */
export function verifyExport(
  entries: readonly LogEntry[],
  material: VerificationMaterial,
): Promise<VerifyResult> {
  return verifyChain({
    entries: entries as readonly ChainEntry[],
    checkpoints: material.checkpoints,
    publicKeyPem: material.publicKeyPem,
  });
}

/** Fetches every checkpoint and the public key, to verify exports now or later. */
export async function fetchVerificationMaterial(
  client: SecadminClient,
): Promise<VerificationMaterial> {
  const checkpoints: LogCheckpoint[] = [];
  for await (const checkpoint of client.paginate('/v1/logs/checkpoints', { limit: 100 }))
    checkpoints.push(checkpoint);
  checkpoints.sort((a, b) => a.seq - b.seq);
  const { publicKey } = await client.logs.getPublicKey();
  return { checkpoints, publicKeyPem: publicKey };
}
