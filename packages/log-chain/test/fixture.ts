import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import {
  CANONICAL_VERSION,
  type ChainEntry,
  type Checkpoint,
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  redactableFields,
} from '../src/index.js';

/** A fixed Ed25519 key (seed 0x01…0x20), so the worked example's signature is stable. */
const SEED = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
export const privateKey: KeyObject = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), SEED]),
  format: 'der',
  type: 'pkcs8',
});
export const publicKeyPem = createPublicKey(privateKey)
  .export({ format: 'pem', type: 'spki' })
  .toString();

type Unsealed = Omit<
  ChainEntry,
  'seq' | 'hash' | 'prevHash' | 'digests' | 'salts' | 'canonicalVersion'
>;

export function entry(n: number, extra: Partial<Unsealed> = {}): Unsealed {
  return {
    id: `log_01kb0000000000000000000${String(n).padStart(3, '0')}`,
    timestamp: `2026-11-26T08:00:00.${String(n % 1000).padStart(3, '0')}Z`,
    event: 'user.login',
    actor: { type: 'user', id: `u${n}`, email: `u${n}@example.com` },
    target: { type: 'session', id: `s${n}` },
    result: 'success',
    origin: 'api',
    ingestedBy: 'key_01kb0000000000000000000000',
    receivedAt: '2026-11-26T08:00:01.000Z',
    metadata: { n, tags: ['a', 'b'] },
    ...extra,
  };
}

/**
 * Salts from a counter: deterministic fixtures (the server uses 16 random bytes). Sealed
 * under the canonical form new entries get, unless `version` says otherwise.
 */
export function seal(
  unsealed: Unsealed[],
  firstSeq = 1,
  prevHash = GENESIS_HASH,
  version = CANONICAL_VERSION,
): ChainEntry[] {
  let prev = prevHash;
  return unsealed.map((item, i) => {
    const salts: Record<string, string> = {};
    const digests: Record<string, string> = {};
    for (const [path, value] of redactableFields(item)) {
      const salt = (i * 100 + Object.keys(salts).length).toString(16).padStart(32, '0');
      salts[path] = salt;
      digests[path] = fieldDigest(salt, value);
    }
    const sealed: ChainEntry = {
      ...item,
      seq: firstSeq + i,
      prevHash: prev,
      hash: null,
      digests,
      salts,
      ...(version === 1 ? {} : { canonicalVersion: version }),
    };
    sealed.hash = entryHash(prev, sealed);
    prev = sealed.hash;
    return sealed;
  });
}

export function checkpoint(seq: number, hash: string): Checkpoint {
  const signature = sign(null, Buffer.from(checkpointMessage(seq, hash)), privateKey);
  return { seq, hash, signature: signature.toString('base64') };
}
