import { generateKeyPairSync } from 'node:crypto';
import { keyFingerprint } from '@secadmin/log-chain';
import { expect, it } from 'vitest';
import { Cursors } from '../../../lib/cursor.js';
import { Unavailable } from '../../../lib/errors.js';
import type { ChainRepository } from './repository.js';
import { ChainService } from './service.js';

it('walks the chain once at a time per instance: a second verify meanwhile is 503, later it runs', async () => {
  let release = () => {};
  const head = new Promise<{ head: undefined }>((resolve) => {
    release = () => resolve({ head: undefined });
  });
  const chain = {
    state: () => head,
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
    { proofs: async () => ({ proofs: [], checkpoints: [] }) },
  );

  const first = service.verify({});
  const second = await service.verify({}).catch((error: unknown) => error);
  expect(second).toBeInstanceOf(Unavailable);
  expect((second as Unavailable).retryAfterSeconds).toBe(5);
  release();
  expect(await first).toMatchObject({ valid: true, checkedEntries: 0 });
  expect(await service.verify({})).toMatchObject({ valid: true });
});
