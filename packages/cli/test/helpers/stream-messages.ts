import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type ChainEntry,
  type Checkpoint,
  checkpointMessage,
  entryHash,
  fieldDigest,
  GENESIS_HASH,
  redactableFields,
} from '@secadmin/log-chain';

/** What a log stream sends, built here so a receiver can be tested without a server. */

export const signingKey = generateKeyPairSync('ed25519');
export const publicKeyPem = signingKey.publicKey.export({ format: 'pem', type: 'spki' }).toString();
export const STREAM = 'lst_01kb00000000000000000000cl';
export const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/** The first `count` entries of a chain, sealed, as a full entry shows them. */
export function chain(count: number): ChainEntry[] {
  let prev = GENESIS_HASH;
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const item = {
      id: `log_01kb0000000000000000000${String(n).padStart(3, '0')}`,
      timestamp: `2026-11-26T09:00:00.${String(n).padStart(3, '0')}Z`,
      event: 'user.login',
      actor: { type: 'user', id: `u${n}`, email: `u${n}@example.com` },
      result: 'success',
      origin: 'api',
      metadata: { n },
    };
    const salts: Record<string, string> = {};
    const digests: Record<string, string> = {};
    for (const [path, value] of redactableFields(item)) {
      salts[path] = `${n}:${path}`.padStart(32, '0');
      digests[path] = fieldDigest(salts[path] as string, value);
    }
    const sealed: ChainEntry = { ...item, seq: n, prevHash: prev, hash: null, digests, salts };
    sealed.hash = entryHash(prev, sealed);
    prev = sealed.hash;
    return sealed;
  });
}

export function checkpointOf(
  entry: ChainEntry,
  key: KeyObject = signingKey.privateKey,
): Checkpoint {
  const message = checkpointMessage(entry.seq as number, entry.hash as string);
  return {
    seq: entry.seq as number,
    hash: entry.hash as string,
    createdAt: '2026-11-26T09:01:00.000Z',
    signature: sign(null, Buffer.from(message), key).toString('base64'),
  };
}

/** The JSON body of the message for range from–to, and its webhook-id. */
export function message(
  fromSeq: number,
  toSeq: number,
  entries: ChainEntry[],
  checkpoint: Checkpoint | null = null,
): { id: string; body: string } {
  return {
    id: `msg_${STREAM}_${fromSeq}_${toSeq}`,
    body: JSON.stringify({
      type: 'audit_log.entries',
      stream: STREAM,
      range: { fromSeq, toSeq },
      entries,
      checkpoint,
    }),
  };
}

/** The Standard Webhooks headers, one signature per secret. */
export function signed(
  id: string,
  body: string,
  secrets: readonly string[] = [SECRET],
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signatures = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
        .update(`${id}.${timestamp}.${body}`)
        .digest('base64')}`,
  );
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
