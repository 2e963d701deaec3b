import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { signingKeyFromPem } from './signing-key.js';

const newPrivateKeyPem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/**
 * Issue 20, L-d: startup did not check the signatures of the key list's rotation records. A
 * database writer who lists a key of its own as the active one could start an instance that
 * holds it, which then signed the chain.
 */
describe('a forged rotation record at startup', () => {
  const keyA = newPrivateKeyPem();
  const forgerPem = newPrivateKeyPem();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ signingKey: keyA });
    const { response } = await server.client.POST('/v1/logs', {
      body: {
        entries: [1, 2, 3].map(() => ({
          event: 'a.b',
          actor: { type: 'user' },
          result: 'success' as const,
        })),
      },
    });
    expect(response.status).toBe(201);
    await server.sealer.flush();
    const signerA = await signingKeyFromPem(keyA, 'a');
    const forger = await signingKeyFromPem(forgerPem, 'forger');
    const message = `secadmin-key-rotation:v1:4:${signerA.fingerprint}:${forger.fingerprint}`;
    await server.db.query(
      `INSERT INTO signing_keys (fingerprint, public_key, from_seq, previous_key_signature, new_key_signature)
       VALUES ($1, $2, 4, $3, $3)`,
      [forger.fingerprint, forger.publicKeyPem, forger.sign(message)],
    );
  });
  afterAll(() => server?.stop());

  it('stops an instance holding the forged key, and the rightful one, with one clear line', async () => {
    for (const signingKey of [forgerPem, keyA]) {
      const failure = await server.restart({ signingKey }).then(
        (started) => {
          server = started;
          return undefined;
        },
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(
        /^the audit-log signing keys listed in this database do not hold: the rotation to key \S+ at seq 4 is not signed by both \S+ and \S+\. Refusing to start/,
      );
      expect(failure?.message).not.toContain('\n');
    }
  });
});
