import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ChainEntry,
  type Checkpoint,
  checkpointMessage,
  entryHash,
  KeySchedule,
  keyFingerprint,
  rotationMessage,
  type SigningKeyRecord,
  verifyChain,
} from '../src/index.js';
import { entry, privateKey, publicKeyPem, seal } from './fixture.js';

const pemOf = (key: KeyObject) =>
  createPublicKey(key).export({ format: 'pem', type: 'spki' }).toString();
const signWith = (key: KeyObject, message: string) =>
  sign(null, Buffer.from(message), key).toString('base64');
const checkpointBy = (key: KeyObject, seq: number, hash: string): Checkpoint => ({
  seq,
  hash,
  signature: signWith(key, checkpointMessage(seq, hash)),
});

/** 600 entries with a checkpoint every 100, each signed by `keyAt(seq)`. */
function chain(keyAt: (seq: number) => KeyObject) {
  const entries = seal(Array.from({ length: 600 }, (_, i) => entry(i + 1)));
  const checkpoints = [100, 200, 300, 400, 500, 600].map((seq) =>
    checkpointBy(keyAt(seq), seq, entries[seq - 1]?.hash as string),
  );
  return { entries, checkpoints };
}

describe('key fingerprints', () => {
  it('are SHA256: and the lowercase hex SHA-256 of the SPKI DER', async () => {
    const der = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' });
    expect(await keyFingerprint(publicKeyPem)).toBe(
      `SHA256:${createHash('sha256').update(der).digest('hex')}`,
    );
    expect(await keyFingerprint(publicKeyPem)).toMatch(/^SHA256:[0-9a-f]{64}$/);
  });
});

describe('a pinned verifier (M5)', () => {
  // The attack: rewrite the chain from seq 500 on, re-hash it, sign new checkpoints with a
  // fresh key and hand that key over as "the public key" of the material.
  const { entries, checkpoints } = chain(() => privateKey);
  const forger = generateKeyPairSync('ed25519').privateKey;
  const forged = structuredClone(entries);
  for (let i = 499; i < forged.length; i++) {
    const item = forged[i] as ChainEntry;
    if (i === 499) item.event = 'user.logout';
    item.prevHash = (forged[i - 1] as ChainEntry).hash;
    item.hash = entryHash(item.prevHash as string, item);
  }
  const forgedCheckpoints = [100, 200, 300, 400, 500, 600].map((seq) =>
    checkpointBy(forger, seq, forged[seq - 1]?.hash as string),
  );
  const forgedMaterial = { checkpoints: forgedCheckpoints, publicKeyPem: pemOf(forger) };

  it('passes the re-signed rewrite only when nothing is pinned, and says no key was pinned', async () => {
    expect(await verifyChain({ entries: forged, ...forgedMaterial })).toMatchObject({
      valid: true,
      pinnedKey: null,
    });
  });

  it('refuses the re-signed rewrite when the real key is pinned, as PEM or as fingerprint', async () => {
    const fingerprint = await keyFingerprint(publicKeyPem);
    for (const expectedKey of [publicKeyPem, fingerprint]) {
      const result = await verifyChain({ entries: forged, ...forgedMaterial, expectedKey });
      expect(result.valid).toBe(false);
      expect(result.reason).toMatch(
        `the pinned key ${fingerprint} is not one of the keys that sign this chain (1 listed)`,
      );
    }
  });

  it('accepts the intact chain under the pinned key and names its fingerprint', async () => {
    expect(
      await verifyChain({
        entries,
        checkpoints,
        publicKeyPem,
        expectedKey: await keyFingerprint(publicKeyPem),
      }),
    ).toMatchObject({
      valid: true,
      checkedEntries: 600,
      pinnedKey: await keyFingerprint(publicKeyPem),
    });
  });

  it('refuses a pin that is neither a PEM nor a fingerprint', async () => {
    expect(
      await verifyChain({ entries, checkpoints, publicKeyPem, expectedKey: 'SHA256:abc' }),
    ).toMatchObject({ valid: false, reason: /neither a SPKI PEM public key nor a SHA256/ });
  });
});

describe('key rotation', () => {
  const oldKey = privateKey;
  const newKey = generateKeyPairSync('ed25519').privateKey;
  const { entries, checkpoints } = chain((seq) => (seq >= 301 ? newKey : oldKey));

  async function records(
    previousSigner: KeyObject,
    newSigner: KeyObject,
    fromSeq = 301,
  ): Promise<SigningKeyRecord[]> {
    const message = rotationMessage(
      fromSeq,
      await keyFingerprint(pemOf(oldKey)),
      await keyFingerprint(pemOf(newKey)),
    );
    return [
      { publicKey: pemOf(oldKey), fromSeq: 1 },
      {
        publicKey: pemOf(newKey),
        fromSeq,
        rotation: {
          previousKeySignature: signWith(previousSigner, message),
          newKeySignature: signWith(newSigner, message),
        },
      },
    ];
  }

  it('verifies across a rotation, pinned to the old key or to the new one', async () => {
    const publicKeys = await records(oldKey, newKey);
    for (const expectedKey of [pemOf(oldKey), await keyFingerprint(pemOf(newKey))])
      expect(
        await verifyChain({
          entries,
          checkpoints,
          publicKeyPem: pemOf(newKey),
          publicKeys,
          expectedKey,
        }),
      ).toMatchObject({ valid: true, checkedEntries: 600, lastCheckpointSeq: 600 });
  });

  it('refuses a rotation record the old key did not sign, or signed for another seq', async () => {
    const attacker = generateKeyPairSync('ed25519').privateKey;
    const forgedBy = await records(attacker, newKey);
    const moved = await records(oldKey, newKey, 301);
    (moved[1] as SigningKeyRecord).fromSeq = 201;
    const unsigned = await records(oldKey, newKey);
    delete (unsigned[1] as SigningKeyRecord).rotation;
    for (const publicKeys of [forgedBy, moved, unsigned]) {
      const result = await verifyChain({
        entries,
        checkpoints,
        publicKeyPem: pemOf(newKey),
        publicKeys,
        expectedKey: pemOf(oldKey),
      });
      expect(result.valid).toBe(false);
      expect(result.reason).toMatch(
        /^the rotation to key SHA256:[0-9a-f]{64} at seq \d+ is not signed by both/,
      );
    }
  });

  it('checks each checkpoint against the key that covers its seq', async () => {
    const publicKeys = await records(oldKey, newKey);
    const early = checkpoints.map((c) => (c.seq === 400 ? checkpointBy(oldKey, 400, c.hash) : c));
    expect(
      await verifyChain({
        entries,
        checkpoints: early,
        publicKeyPem: pemOf(newKey),
        publicKeys,
        expectedKey: pemOf(oldKey),
      }),
    ).toMatchObject({
      valid: false,
      firstInvalidSeq: 400,
      reason: 'checkpoint 400 has an invalid signature',
    });
  });
});

describe('the rotation example of the OpenAPI document (tag "Audit logs")', () => {
  it('has these fingerprints and signatures, and a verifier pinned to the first key accepts it', async () => {
    const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 33));
    const second = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const first = await keyFingerprint(publicKeyPem);
    const next = await keyFingerprint(pemOf(second));
    expect(first).toBe('SHA256:646d6be49d9f0048f94f67749eca35156eed4f7a7be18e4fc4a94bfd44e300b0');
    expect(next).toBe('SHA256:c4b2956e00f048ac8ac94746e6699cebebfdf682181a0011c8e3feea5ab7c091');
    const message = rotationMessage(250001, first, next);
    const rotation = {
      previousKeySignature:
        'MJX18cBOR8qow0qiS+ZnBXzAwZ01HWisvoAsHsTgqKCvmmhiNFf5RKZ/y5NKmNBNKXPApBdETlsm+KKJ2HUZCA==',
      newKeySignature:
        'qAgURYVybF1qA1BoOjd8/5RFj1fmLzN2hlr3FRi2wPClXugcIuv7BZMvoBfcPVSrYa2PTtSP4sioh62nGgXzCQ==',
    };
    expect(signWith(privateKey, message)).toBe(rotation.previousKeySignature);
    expect(signWith(second, message)).toBe(rotation.newKeySignature);
    const schedule = await KeySchedule.trust(
      [
        { publicKey: publicKeyPem, fromSeq: 1 },
        { publicKey: pemOf(second), fingerprint: next, fromSeq: 250001, rotation },
      ],
      first,
    );
    expect(schedule.pinned).toBe(first);
  });
});
