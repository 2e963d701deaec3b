import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointMessage } from '@secadmin/log-chain';
import { afterAll, describe, expect, it } from 'vitest';
import { assertSignsTheChain, loadSigningKey } from './signing-key.js';

describe('the checkpoint signing key', () => {
  const dirs: string[] = [];
  const dataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'secadmin-signing-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('is generated once into <data dir>/signing-key.pem (0600) and reused', async () => {
    const dir = await dataDir();
    const first = await loadSigningKey(undefined, dir);
    expect(first.generatedFile).toBe(join(dir, 'signing-key.pem'));
    expect((await stat(join(dir, 'signing-key.pem'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, 'signing-key.pem'), 'utf8')).toMatch(
      /^-----BEGIN PRIVATE KEY-----/,
    );
    const again = await loadSigningKey(undefined, dir);
    expect(again.generatedFile).toBeUndefined();
    expect(again.publicKeyPem).toBe(first.publicKeyPem);
    const hash = 'ab'.repeat(32);
    const signature = Buffer.from(first.signCheckpoint(7, hash), 'base64');
    expect(
      verify(null, Buffer.from(checkpointMessage(7, hash)), first.publicKeyPem, signature),
    ).toBe(true);
  });

  it('comes from SECADMIN_SIGNING_KEY when set, and must be Ed25519', async () => {
    const dir = await dataDir();
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const configured = await loadSigningKey(
      privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      dir,
    );
    expect(configured.publicKeyPem).toBe(publicKey.export({ format: 'pem', type: 'spki' }));
    expect(configured.generatedFile).toBeUndefined();

    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    await expect(loadSigningKey(rsa, dir)).rejects.toThrow(
      'SECADMIN_SIGNING_KEY must be an Ed25519 key, not rsa.',
    );
    const error = await loadSigningKey('not a key', dir).catch((e: Error) => e);
    expect((error as Error).message).toBe('SECADMIN_SIGNING_KEY is not a PKCS#8 PEM private key.');
  });

  it('refuses to sign a chain whose newest checkpoint another key signed', async () => {
    const ours = await loadSigningKey(undefined, await dataDir());
    const theirs = await loadSigningKey(undefined, await dataDir());
    const hash = 'cd'.repeat(32);
    const checkpoint = { seq: 1000, hash, signature: ours.signCheckpoint(1000, hash) };
    expect(() => assertSignsTheChain(ours, checkpoint)).not.toThrow();
    expect(() => assertSignsTheChain(ours, undefined)).not.toThrow();
    expect(() => assertSignsTheChain(theirs, checkpoint)).toThrow(
      /did not sign checkpoint 1000, the newest in the database: every instance on one database must use the same key/,
    );
    expect(() => assertSignsTheChain(ours, { ...checkpoint, seq: 1001 })).toThrow();
  });
});
