import { createHmac, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import {
  type ChainEntry,
  type Checkpoint,
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  redactableFields,
} from '@secadmin/log-chain';

/** A fixed Ed25519 key (seed 0x01…0x20). */
const SEED = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
export const privateKey: KeyObject = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), SEED]),
  format: 'der',
  type: 'pkcs8',
});
export const publicKeyPem = createPublicKey(privateKey)
  .export({ format: 'pem', type: 'spki' })
  .toString();

export const STREAM = 'lst_01kb00000000000000000000aa';
/** `whsec_` + base64 of 32 bytes, as the server makes them. */
export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** The first `count` entries of a chain, sealed (seq 1…count), as a full entry shows them. */
export function chain(count: number): ChainEntry[] {
  let prev = GENESIS_HASH;
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const item = {
      id: `log_01kb0000000000000000000${String(n).padStart(3, '0')}`,
      timestamp: `2026-11-26T08:00:00.${String(n % 1000).padStart(3, '0')}Z`,
      event: n % 2 ? 'user.login' : 'policy.created',
      actor: { type: 'user', id: `u${n}`, email: `u${n}@example.com` },
      target: { type: 'session', id: `s${n}` },
      result: 'success',
      origin: 'api',
      metadata: { n },
    };
    const salts: Record<string, string> = {};
    const digests: Record<string, string> = {};
    for (const [path, value] of redactableFields(item)) {
      const salt = `${n}-${path}`.padStart(32, '0');
      salts[path] = salt;
      digests[path] = fieldDigest(salt, value);
    }
    const sealed: ChainEntry = {
      ...item,
      seq: n,
      prevHash: prev,
      hash: null,
      digests,
      salts,
      canonicalVersion: 2,
    };
    sealed.hash = entryHash(prev, sealed);
    prev = sealed.hash;
    return sealed;
  });
}

export function checkpointOf(entry: ChainEntry, key: KeyObject = privateKey): Checkpoint {
  const seq = entry.seq as number;
  const hash = entry.hash as string;
  return {
    seq,
    hash,
    createdAt: '2026-11-26T08:01:00.000Z',
    signature: sign(null, Buffer.from(checkpointMessage(seq, hash)), key).toString('base64'),
  };
}

/** A message of range from–to carrying `entries`, with the checkpoint given. */
export function message(
  fromSeq: number,
  toSeq: number,
  entries: ChainEntry[],
  checkpoint: Checkpoint | null = null,
) {
  return {
    type: 'audit_log.entries' as const,
    stream: STREAM,
    range: { fromSeq, toSeq },
    entries,
    checkpoint,
  };
}

export const webhookId = (fromSeq: number, toSeq: number) => `msg_${STREAM}_${fromSeq}_${toSeq}`;

/** The three Standard Webhooks headers for `body`, signed with node:crypto under each secret. */
export function signedHeaders(
  id: string,
  body: string,
  secrets: readonly string[] = [SECRET],
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    return `v1,${mac}`;
  });
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
