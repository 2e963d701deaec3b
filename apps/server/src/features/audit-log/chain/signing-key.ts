import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkpointMessage, keyFingerprint } from '@secadmin/log-chain';
import { createSecretFile } from '../../../lib/secret-file.js';

export interface SigningKey {
  /** The SPKI PEM of `GET /v1/logs/public-key`. */
  publicKeyPem: string;
  /** `SHA256:` + lowercase hex SHA-256 of the SPKI DER (the spec's key fingerprint). */
  fingerprint: string;
  /** Base64 Ed25519 signature over the UTF-8 bytes of `message` (a rotation record). */
  sign(message: string): string;
  /** Base64 Ed25519 signature over the checkpoint message of (seq, hash). */
  signCheckpoint(seq: number, hash: string): string;
  /** Where a generated key was written (never the key itself); undefined when configured. */
  generatedFile: string | undefined;
  /** Whether this key made `signature` over the checkpoint message of (seq, hash). */
  signed(checkpoint: { seq: number; hash: string; signature: string }): boolean;
}

/**
 * Refuses a key that did not sign the newest stored checkpoint: a second instance with a key
 * of its own (or a lost key replaced by a new one) would sign checkpoints that no public key
 * verifies together with the earlier ones, and `verify` would fail for good.
 */
export function assertSignsTheChain(
  key: SigningKey,
  newest: { seq: number; hash: string; signature: string } | undefined,
): void {
  if (newest && !key.signed(newest))
    throw new Error(
      `the audit-log signing key${key.generatedFile ? ` just generated into ${key.generatedFile}` : ''} did not sign checkpoint ${newest.seq}, the newest in the database: every instance on one database must use the same key (SECADMIN_SIGNING_KEY, or the first instance's signing-key.pem). Refusing to start rather than sign the chain with another key.`,
    );
}

function fromPem(pem: string, origin: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error(`${origin} is not a PKCS#8 PEM private key.`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`${origin} must be an Ed25519 key, not ${key.asymmetricKeyType}.`);
  return key;
}

/**
 * The key that signs checkpoints (docs/running-and-config.md): `SECADMIN_SIGNING_KEY` (PKCS#8 PEM), or
 * one generated once into `<dataDir>/signing-key.pem` (0600). Instances sharing a
 * database must share it.
 */
export async function loadSigningKey(
  configured: string | undefined,
  dataDir: string,
): Promise<SigningKey> {
  let privateKey: KeyObject;
  let generatedFile: string | undefined;
  if (configured) privateKey = fromPem(configured, 'SECADMIN_SIGNING_KEY');
  else {
    const file = join(dataDir, 'signing-key.pem');
    let pem = await readFile(file, 'utf8').catch(() => undefined);
    if (!pem?.trim()) {
      const generated = generateKeyPairSync('ed25519').privateKey;
      const pkcs8 = generated.export({ format: 'pem', type: 'pkcs8' }) as string;
      if (await createSecretFile(file, pkcs8)) generatedFile = file;
      pem = await readFile(file, 'utf8');
    }
    privateKey = fromPem(pem, file);
  }
  return signingKey(privateKey, generatedFile);
}

/** A signing key from a PKCS#8 PEM Ed25519 private key; `origin` names it in errors. */
export function signingKeyFromPem(pem: string, origin: string): Promise<SigningKey> {
  return signingKey(fromPem(pem, origin), undefined);
}

async function signingKey(
  privateKey: KeyObject,
  generatedFile: string | undefined,
): Promise<SigningKey> {
  const publicKeyPem = createPublicKey(privateKey)
    .export({ format: 'pem', type: 'spki' })
    .toString();
  return {
    publicKeyPem,
    fingerprint: await keyFingerprint(publicKeyPem),
    sign: (message) => sign(null, Buffer.from(message), privateKey).toString('base64'),
    signCheckpoint: (seq, hash) =>
      sign(null, Buffer.from(checkpointMessage(seq, hash)), privateKey).toString('base64'),
    generatedFile,
    signed: ({ seq, hash, signature }) =>
      verify(
        null,
        Buffer.from(checkpointMessage(seq, hash)),
        createPublicKey(privateKey),
        Buffer.from(signature, 'base64'),
      ),
  };
}
