import type { SigningKeyRecord } from './types.js';

const encoder = new TextEncoder();
const FINGERPRINT = /^SHA256:[0-9a-f]{64}$/;

export function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function spkiDer(publicKeyPem: string): Uint8Array<ArrayBuffer> {
  const body = publicKeyPem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  return base64Bytes(body);
}

/** An Ed25519 public key from its SPKI PEM, through Web Crypto (Node 20+, browsers). */
export function importPublicKey(publicKeyPem: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('spki', spkiDer(publicKeyPem), { name: 'Ed25519' }, false, [
    'verify',
  ]);
}

/**
 * A public key's fingerprint: `SHA256:` and the lowercase hex SHA-256 of its DER
 * SubjectPublicKeyInfo (the bytes inside the PEM), e.g. for `openssl pkey -pubin -outform DER
 * | sha256sum`.
 */
export async function keyFingerprint(publicKeyPem: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', spkiDer(publicKeyPem)));
  return `SHA256:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const isFingerprint = (text: string): boolean => FINGERPRINT.test(text.trim());

/**
 * The bytes both keys of a rotation sign: the old key hands the chain over to the new one
 * from `fromSeq` on, and the new key accepts it from the old one.
 */
export function rotationMessage(
  fromSeq: number,
  previousFingerprint: string,
  newFingerprint: string,
): string {
  return `secadmin-key-rotation:v1:${fromSeq}:${previousFingerprint}:${newFingerprint}`;
}

/** Whether `signature` (standard base64) is the key's Ed25519 signature over `message`. */
export async function verifySignature(
  key: CryptoKey,
  signature: string,
  message: string,
): Promise<boolean> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = base64Bytes(signature);
  } catch {
    return false;
  }
  return crypto.subtle.verify({ name: 'Ed25519' }, key, bytes, encoder.encode(message));
}

interface TrustedKey {
  fromSeq: number;
  fingerprint: string;
  key: CryptoKey;
}

/** The keys a verifier trusts, each with the seqs whose checkpoints it signs. */
export class KeySchedule {
  private constructor(
    private readonly keys: TrustedKey[],
    /** The fingerprint of the key the caller pinned, or null when none was. */
    readonly pinned: string | null,
  ) {}

  /** The key that signs a checkpoint at `seq`: the one with the highest `fromSeq` ≤ seq. */
  forSeq(seq: number): CryptoKey {
    let chosen = this.keys[0] as TrustedKey;
    for (const key of this.keys) if (key.fromSeq <= seq) chosen = key;
    return chosen.key;
  }

  /**
   * Trusts the listed keys only as far as they chain to the pinned one: each rotation record
   * must carry the previous key's and the new key's signature over its rotation message, so
   * trust flows from the pinned key forward (the old key handed over) and backward (the new
   * key names the old one it took over from). Without a pin the list is taken as it is, and
   * `pinned` is null. Throws with a reason when the list or the pin does not hold.
   */
  static async trust(
    records: readonly SigningKeyRecord[],
    expectedKey: string | undefined,
  ): Promise<KeySchedule> {
    const sorted = [...records].sort((a, b) => a.fromSeq - b.fromSeq);
    if (sorted.length === 0) throw new Error('no public key is given');
    const keys: TrustedKey[] = [];
    for (const [i, record] of sorted.entries()) {
      let key: CryptoKey;
      let fingerprint: string;
      try {
        key = await importPublicKey(record.publicKey);
        fingerprint = await keyFingerprint(record.publicKey);
      } catch {
        throw new Error(`public key ${i + 1} is not an Ed25519 public key in SPKI PEM`);
      }
      if (record.fingerprint !== undefined && record.fingerprint !== fingerprint)
        throw new Error(`public key ${fingerprint} is listed under another fingerprint`);
      const previous = keys[i - 1];
      if (previous) {
        if (record.fromSeq <= previous.fromSeq)
          throw new Error(`two public keys sign from seq ${record.fromSeq}`);
        const message = rotationMessage(record.fromSeq, previous.fingerprint, fingerprint);
        const rotation = record.rotation;
        if (
          !rotation ||
          !(await verifySignature(previous.key, rotation.previousKeySignature, message)) ||
          !(await verifySignature(key, rotation.newKeySignature, message))
        )
          throw new Error(
            `the rotation to key ${fingerprint} at seq ${record.fromSeq} is not signed by both ${previous.fingerprint} and ${fingerprint}`,
          );
      }
      keys.push({ fromSeq: record.fromSeq, fingerprint, key });
    }
    if (expectedKey === undefined) return new KeySchedule(keys, null);
    const pinned = isFingerprint(expectedKey)
      ? expectedKey.trim()
      : await keyFingerprint(expectedKey).catch(() => {
          throw new Error(
            'the pinned key is neither a SPKI PEM public key nor a SHA256: fingerprint',
          );
        });
    if (!keys.some((key) => key.fingerprint === pinned))
      throw new Error(
        `the pinned key ${pinned} is not one of the keys that sign this chain (${keys.length} listed)`,
      );
    return new KeySchedule(keys, pinned);
  }
}
