import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * What the database keeps of an idempotent request, and why it cannot be read back:
 * - fingerprints and mention tags are HMACs under subkeys of the server secret, so a database
 *   reader cannot test guesses of a request body (a password) against them;
 * - a kept response is sealed (AES-256-GCM) under a key derived from the calling API key's
 *   secret and the `Idempotency-Key`, which the database never holds: only that caller,
 *   sending that key again, can open it.
 */

const subkey = (serverSecret: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', serverSecret, '', `secadmin idempotency ${purpose} v1`, 32));

/** Keyed digests of what a kept row must be matched on, never of anything readable back. */
export class IdempotencyDigests {
  private readonly fingerprintKey: Buffer;
  private readonly mentionKey: Buffer;

  constructor(serverSecret: string) {
    this.fingerprintKey = subkey(serverSecret, 'fingerprint');
    this.mentionKey = subkey(serverSecret, 'mention');
  }

  /** HMAC-SHA-256 of the operation and the canonical request body, given in pieces. */
  async fingerprint(
    method: string,
    path: string,
    canonicalBody: AsyncIterable<string> | Iterable<string>,
  ): Promise<string> {
    const hmac = createHmac('sha256', this.fingerprintKey).update(`${method} ${path}\n`);
    for await (const piece of canonicalBody) hmac.update(piece);
    return hmac.digest('hex');
  }

  /** The tag under which a kept response is found again when what it mentions goes away. */
  mention(kind: 'email' | 'api-key', value: string): string {
    return createHmac('sha256', this.mentionKey).update(`${kind}:${value}`).digest('hex');
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

function responseKey(callerSecret: string, idempotencyKey: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', callerSecret, idempotencyKey, 'secadmin idempotent response v1', 32),
  );
}

/** Who kept the response under which key: bound into the seal, so a row moved elsewhere fails. */
export interface SealContext {
  callerSecret: string;
  keyId: string;
  idempotencyKey: string;
}

const aad = (context: SealContext) => Buffer.from(`${context.keyId}\n${context.idempotencyKey}`);

/** iv ‖ tag ‖ AES-256-GCM(deflate(JSON)). */
export function seal(value: unknown, context: SealContext): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(
    'aes-256-gcm',
    responseKey(context.callerSecret, context.idempotencyKey),
    iv,
  );
  cipher.setAAD(aad(context));
  const body = Buffer.concat([
    cipher.update(deflateRawSync(JSON.stringify(value))),
    cipher.final(),
  ]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Opens what `seal` made with the same context; throws if anything differs. */
export function unseal(sealed: Uint8Array, context: SealContext): unknown {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv(
    'aes-256-gcm',
    responseKey(context.callerSecret, context.idempotencyKey),
    bytes.subarray(0, IV_BYTES),
  );
  decipher.setAAD(aad(context));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const plain = Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]);
  return JSON.parse(inflateRawSync(plain).toString('utf8'));
}
