import { generateKeyPairSync } from 'node:crypto';
import { keyFingerprint } from '@secadmin/log-chain';
import { expect, it } from 'vitest';
import { Cursors } from '../../../lib/cursor.js';
import type { ChainRepository } from './repository.js';
import { ChainService } from './service.js';

it('walks two verifications at once per instance; a third waits its turn, none is refused', async () => {
  let release = () => {};
  const head = new Promise<{ head: undefined }>((resolve) => {
    release = () => resolve({ head: undefined });
  });
  let walking = 0;
  const chain = {
    state: () => {
      walking++;
      return head;
    },
    checkpointsBetween: async () => [],
    firstCheckpointFrom: async () => undefined,
    removals: async () => ({ marked: 0, recorded: 0 }),
  } as unknown as ChainRepository;
  const { publicKey } = generateKeyPairSync('ed25519');
  const publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const service = new ChainService(
    chain,
    { all: async () => [] },
    new Cursors('s'.repeat(32)),
    { publicKeyPem, fingerprint: await keyFingerprint(publicKeyPem) },
    { proofs: async () => [] },
  );

  const verifications = [service.verify({}), service.verify({}), service.verify({})];
  await new Promise((resolve) => setImmediate(resolve));
  expect(walking).toBe(2);
  release();
  for (const result of await Promise.all(verifications))
    expect(result).toMatchObject({ valid: true, checkedEntries: 0 });
  expect(walking).toBe(3);
});
