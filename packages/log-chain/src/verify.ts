import {
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  redactableFields,
} from './canonical.js';
import type { ChainEntry, Checkpoint, VerifyInput, VerifyResult } from './types.js';

const encoder = new TextEncoder();

function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** An Ed25519 public key from its SPKI PEM, through Web Crypto (Node 20+, browsers). */
export function importPublicKey(publicKeyPem: string): Promise<CryptoKey> {
  const body = publicKeyPem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  return crypto.subtle.importKey('spki', base64Bytes(body), { name: 'Ed25519' }, false, ['verify']);
}

/** Whether `checkpoint.signature` is the key's signature over its checkpoint message. */
export async function verifyCheckpointSignature(
  key: CryptoKey,
  checkpoint: Checkpoint,
): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = base64Bytes(checkpoint.signature);
  } catch {
    return false;
  }
  const message = encoder.encode(checkpointMessage(checkpoint.seq, checkpoint.hash));
  return crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
}

/** Why an entry's redactable fields do not match its digests, or undefined if they do. */
export function digestProblem(entry: ChainEntry): string | undefined {
  const digests = entry.digests ?? {};
  const salts = entry.salts ?? {};
  const fields = redactableFields(entry, salts);
  for (const path of fields.keys()) {
    if (digests[path] === undefined) return `${path} is not committed by a digest`;
  }
  for (const [path, digest] of Object.entries(digests)) {
    const salt = salts[path];
    if (salt === undefined) {
      if (fields.has(path)) return `${path} has a value but no salt`;
    } else if (!fields.has(path)) {
      return `${path} has a salt but no value`;
    } else if (fieldDigest(salt, fields.get(path)) !== digest) {
      return `${path} does not match its digest`;
    }
  }
  return undefined;
}

/**
 * Checks a run of consecutive sealed entries (in any order; unsealed ones are skipped)
 * against signed checkpoints: gapless seq, each field digest, each hash and prevHash, each
 * checkpoint's signature and its hash at its seq. The first failure in seq order is
 * reported. Asynchronous because Ed25519 goes through Web Crypto.
 */
export async function verifyChain(input: VerifyInput): Promise<VerifyResult> {
  const sealed = input.entries.filter((entry) => entry.seq !== null && entry.seq !== undefined);
  const entries = [...sealed].sort((a, b) => (a.seq as number) - (b.seq as number));
  const key = await importPublicKey(input.publicKeyPem);
  const checkpoints = [...input.checkpoints].sort((a, b) => a.seq - b.seq);
  const bySeq = new Map<number, Checkpoint>();
  for (const checkpoint of checkpoints) bySeq.set(checkpoint.seq, checkpoint);

  const firstSeq = (entries[0]?.seq ?? 1) as number;
  let checked = 0;
  let lastCheckpointSeq: number | null = null;
  const fail = (seq: number, reason: string): VerifyResult => ({
    valid: false,
    checkedEntries: checked,
    lastCheckpointSeq,
    firstInvalidSeq: seq,
    reason,
  });
  const checkpointAt = async (seq: number, hash: string): Promise<VerifyResult | undefined> => {
    const checkpoint = bySeq.get(seq);
    if (!checkpoint) return undefined;
    if (!(await verifyCheckpointSignature(key, checkpoint)))
      return fail(seq, `checkpoint ${seq} has an invalid signature`);
    if (checkpoint.hash !== hash)
      return fail(
        lastCheckpointSeq === null ? firstSeq : lastCheckpointSeq + 1,
        `checkpoint ${seq} does not match the entries' hash at seq ${seq}`,
      );
    lastCheckpointSeq = seq;
    return undefined;
  };

  let prevHash =
    input.expectFirstPrevHash ?? (firstSeq === 1 ? GENESIS_HASH : (entries[0]?.prevHash ?? ''));
  if (entries.length > 0) {
    const before = await checkpointAt(firstSeq - 1, prevHash);
    if (before) return before;
  }
  let expectedSeq = firstSeq;
  for (const entry of entries) {
    const seq = entry.seq as number;
    if (seq !== expectedSeq)
      return fail(
        expectedSeq,
        seq < expectedSeq ? `seq ${seq} appears twice` : `seq ${expectedSeq} is missing`,
      );
    const problem = digestProblem(entry);
    if (problem) return fail(seq, problem);
    if (entry.prevHash !== prevHash)
      return fail(seq, `prevHash of seq ${seq} is not the hash of seq ${seq - 1}`);
    const hash = entryHash(prevHash, entry);
    if (entry.hash !== hash) return fail(seq, `hash of seq ${seq} does not match its content`);
    const failure = await checkpointAt(seq, hash);
    if (failure) return failure;
    checked++;
    prevHash = hash;
    expectedSeq = seq + 1;
  }
  const lastSeq = expectedSeq - 1;
  for (const checkpoint of checkpoints) {
    if (entries.length > 0 && checkpoint.seq >= firstSeq - 1 && checkpoint.seq <= lastSeq) continue;
    if (!(await verifyCheckpointSignature(key, checkpoint)))
      return fail(checkpoint.seq, `checkpoint ${checkpoint.seq} has an invalid signature`);
  }
  return { valid: true, checkedEntries: checked, lastCheckpointSeq };
}
