import { KeySchedule, rotationMessage, type SigningKeyRecord } from '@secadmin/log-chain';
import type { Store } from '../../../storage/store.js';
import type { SigningKeyRow } from './model.js';
import type { ChainRepository } from './repository.js';
import { assertSignsTheChain, type SigningKey } from './signing-key.js';
import type { SigningKeysRepository } from './signing-keys-repository.js';

/** A key row as verifiers take it (`GET /v1/logs/public-key`'s `keys`, `verifyChain`). */
export function keyRecord(row: SigningKeyRow): SigningKeyRecord & { fingerprint: string } {
  return {
    fingerprint: row.fingerprint,
    publicKey: row.publicKey,
    fromSeq: row.fromSeq,
    rotation:
      row.previousKeySignature !== null && row.newKeySignature !== null
        ? { previousKeySignature: row.previousKeySignature, newKeySignature: row.newKeySignature }
        : null,
  };
}

/** Registration and rotation of the keys that sign checkpoints. */
export class SigningKeys {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly keys: Pick<SigningKeysRepository, 'lock' | 'all' | 'add'>,
    private readonly chain: Pick<
      ChainRepository,
      'checkpoints' | 'lockSealer' | 'state' | 'addCheckpoint'
    >,
  ) {}

  /**
   * At start, under the key list's lock: the first instance on a database registers its key
   * (from seq 1, once it has checked that it signed the newest checkpoint, for a database from
   * before the list existed); every later one must hold the active key. Two instances that
   * start together with different keys cannot both pass: the second waits for the lock and
   * then finds the first one's key. A list whose rotation records are not signed by both keys
   * stops the start.
   */
  async register(key: SigningKey): Promise<void> {
    await this.store.transaction(async () => {
      await this.keys.lock();
      const keys = await this.keys.all();
      const active = keys.at(-1);
      if (!active) {
        assertSignsTheChain(key, (await this.chain.checkpoints(undefined, 1))[0]);
        await this.keys.add({
          fingerprint: key.fingerprint,
          publicKey: key.publicKeyPem,
          fromSeq: 1,
          previousKeySignature: null,
          newKeySignature: null,
        });
        return;
      }
      await assertRotationsHold(keys);
      if (active.fingerprint === key.fingerprint) return;
      const retired = keys.find((row) => row.fingerprint === key.fingerprint);
      throw new Error(
        `the audit-log signing key ${key.fingerprint}${key.generatedFile ? ` (just generated into ${key.generatedFile})` : ''} is not the active key of this database: ${retired ? `it was rotated out at seq ${active.fromSeq}` : 'it is not registered'}, and ${active.fingerprint} signs checkpoints from seq ${active.fromSeq} on. Every instance on one database must use the active key (SECADMIN_SIGNING_KEY, or the first instance's signing-key.pem); to change it, rotate it (README, "Rotating the signing key"). Refusing to start rather than sign the chain with another key.`,
      );
    });
  }

  /**
   * Hands the chain from `current` (the active key) to `next`: in one transaction under the
   * key list's lock and the sealer's lock (so the head stands still), the head is checkpointed
   * with `current` if no checkpoint covers it yet, and `next` is registered from the seq after
   * the head, with both keys' signatures over the rotation message. Instances still holding
   * `current` then stop signing (the sealer checks the active key) until restarted with `next`.
   */
  async rotate(
    current: SigningKey,
    next: SigningKey,
  ): Promise<{ fromSeq: number; previous: string; fingerprint: string }> {
    return this.store.transaction(async () => {
      await this.keys.lock();
      await this.chain.lockSealer();
      const keys = await this.keys.all();
      const active = keys.at(-1);
      if (active?.fingerprint !== current.fingerprint)
        throw new Error(
          `the current key ${current.fingerprint} is not the active key of this database (${active ? `${active.fingerprint}, from seq ${active.fromSeq}` : 'none is registered: start the server once first'})`,
        );
      if (keys.some((row) => row.fingerprint === next.fingerprint))
        throw new Error(
          `the new key ${next.fingerprint} has signed this chain before: use a fresh key`,
        );
      const { head, covered } = await this.chain.state();
      const fromSeq = (head?.seq ?? 0) + 1;
      if (fromSeq <= active.fromSeq)
        throw new Error(
          `no entry has been sealed since ${active.fingerprint} took over at seq ${active.fromSeq}: rotate once the chain has moved on`,
        );
      if (head && head.seq > covered)
        await this.chain.addCheckpoint({
          seq: head.seq,
          hash: head.hash,
          signature: current.signCheckpoint(head.seq, head.hash),
        });
      const message = rotationMessage(fromSeq, current.fingerprint, next.fingerprint);
      await this.keys.add({
        fingerprint: next.fingerprint,
        publicKey: next.publicKeyPem,
        fromSeq,
        previousKeySignature: current.sign(message),
        newKeySignature: next.sign(message),
      });
      return { fromSeq, previous: current.fingerprint, fingerprint: next.fingerprint };
    });
  }
}

/**
 * Every rotation record must carry both keys' signatures: one a database writer added to
 * list a key of its own would otherwise let an instance holding that key start and sign.
 */
async function assertRotationsHold(keys: SigningKeyRow[]): Promise<void> {
  try {
    await KeySchedule.trust(keys.map(keyRecord), undefined);
  } catch (error) {
    throw new Error(
      `the audit-log signing keys listed in this database do not hold: ${(error as Error).message}. Refusing to start rather than sign the chain under a key list that was altered; see the README, "Rotating the signing key".`,
    );
  }
}
