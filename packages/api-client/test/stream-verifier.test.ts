import { generateKeyPairSync } from 'node:crypto';
import type { ChainEntry } from '@secadmin/log-chain';
import { keyFingerprint } from '@secadmin/log-chain';
import { describe, expect, it } from 'vitest';
import { StreamVerifier, type StreamVerifierOptions } from '../src/index.js';
import { chain, checkpointOf, message, publicKeyPem, STREAM, webhookId } from './stream-fixture.js';

const log = chain(12);
const at = (seq: number) => log[seq - 1] as ChainEntry;
const range = (from: number, to: number) => log.slice(from - 1, to);
const copy = <T>(value: T): T => structuredClone(value);

const verifier = (options: StreamVerifierOptions = {}) =>
  StreamVerifier.create({ publicKeyPem, expectedKey: publicKeyPem, ...options });

describe('StreamVerifier, an unfiltered stream', () => {
  it('verifies contiguous messages, their links and their checkpoints', async () => {
    const v = await verifier({ fromSeq: 1 });
    expect(v.pinnedKey).toBe(await keyFingerprint(publicKeyPem));
    expect(await v.add(message(1, 3, range(1, 3)), webhookId(1, 3))).toEqual({
      status: 'verified',
      fromSeq: 1,
      toSeq: 3,
      entries: 3,
      checkpoint: 'none',
      coveredThroughSeq: null,
    });
    // The checkpoint at 2 was sealed before this message: it ties an entry of the one before.
    expect(
      await v.add(message(4, 6, range(4, 6), checkpointOf(at(2))), webhookId(4, 6)),
    ).toMatchObject({
      status: 'verified',
      checkpoint: 'verified',
      coveredThroughSeq: 2,
    });
    expect(await v.add(message(7, 10, range(7, 10), checkpointOf(at(9))))).toMatchObject({
      status: 'verified',
      coveredThroughSeq: 9,
    });
    expect(v.deliveredThroughSeq).toBe(10);
    expect(v.break).toBeUndefined();
  });

  it('finds a gap between ranges, names its first seq, and goes on after a replay fills it', async () => {
    const v = await verifier();
    await v.add(message(1, 3, range(1, 3)));
    expect(await v.add(message(5, 6, range(5, 6)))).toEqual({
      status: 'invalid',
      seq: 4,
      reason: 'seq 4–4 never arrived: the range starts at 5',
    });
    expect(v.break).toEqual({ seq: 4, reason: 'seq 4–4 never arrived: the range starts at 5' });
    expect(await v.add(message(4, 6, range(4, 6)))).toMatchObject({ status: 'verified' });
    expect(v.break?.seq).toBe(4);
  });

  it('finds an entry missing inside a range', async () => {
    const v = await verifier();
    const result = await v.add(message(1, 4, [at(1), at(2), at(4)]));
    expect(result).toEqual({ status: 'invalid', seq: 3, reason: 'seq 3 of range 1–4 is missing' });
  });

  it('finds an altered entry: a changed field, a changed redactable value, a hash recomputed without the chain', async () => {
    const changed = copy(at(2));
    changed.event = 'user.deleted';
    expect(await (await verifier()).add(message(1, 2, [at(1), changed]))).toEqual({
      status: 'invalid',
      seq: 2,
      reason: 'hash of seq 2 does not match its content',
    });
    const email = copy(at(2));
    email.actor.email = 'mallory@example.com';
    expect(await (await verifier()).add(message(1, 2, [at(1), email]))).toMatchObject({
      status: 'invalid',
      seq: 2,
      reason: 'seq 2: actor.email does not match its digest',
    });
  });

  it('finds a broken prevHash across messages, even where each entry hashes right', async () => {
    const other = chain(6).map((entry) => copy(entry));
    // A rewritten seq 4 with a consistent hash of its own, but not linked to seq 3.
    const forged = copy(at(4));
    forged.prevHash = 'f'.repeat(64);
    const { entryHash } = await import('@secadmin/log-chain');
    forged.hash = entryHash(forged.prevHash, forged);
    const v = await verifier();
    await v.add(message(1, 3, other.slice(0, 3)));
    expect(await v.add(message(4, 4, [forged]))).toEqual({
      status: 'invalid',
      seq: 4,
      reason: 'prevHash of seq 4 is not the hash of seq 3',
    });
  });

  it('finds seq 1 not following the genesis hash', async () => {
    const forged = copy(at(1));
    forged.prevHash = 'a'.repeat(64);
    const { entryHash } = await import('@secadmin/log-chain');
    forged.hash = entryHash(forged.prevHash, forged);
    expect(await (await verifier()).add(message(1, 1, [forged]))).toMatchObject({
      status: 'invalid',
      seq: 1,
      reason: 'prevHash of seq 1 is not the hash of seq 0',
    });
  });

  it('finds a forged checkpoint: signed by another key, or over another hash', async () => {
    const { privateKey: other } = generateKeyPairSync('ed25519');
    expect(
      await (await verifier()).add(message(1, 3, range(1, 3), checkpointOf(at(3), other))),
    ).toEqual({
      status: 'invalid',
      seq: 3,
      reason: 'checkpoint 3 has an invalid signature',
    });
    const tampered = { ...checkpointOf(at(3)), hash: at(2).hash as string };
    expect(await (await verifier()).add(message(1, 3, range(1, 3), tampered))).toMatchObject({
      status: 'invalid',
      reason: 'checkpoint 3 has an invalid signature',
    });
    // Validly signed, but over a chain that is not the one delivered (entries rewritten and re-hashed).
    const rewritten = range(1, 3).map(copy);
    const { entryHash } = await import('@secadmin/log-chain');
    (rewritten[2] as ChainEntry).traceId = 'rewritten';
    (rewritten[2] as ChainEntry).hash = entryHash(at(2).hash as string, rewritten[2] as ChainEntry);
    expect(await (await verifier()).add(message(1, 3, rewritten, checkpointOf(at(3))))).toEqual({
      status: 'invalid',
      seq: 3,
      reason: 'checkpoint 3 does not match the hash of seq 3',
    });
    expect(
      await (await verifier()).add(message(1, 2, range(1, 2), checkpointOf(at(3)))),
    ).toMatchObject({
      status: 'invalid',
      reason: "checkpoint 3 lies past the range's end 2",
    });
  });

  it('takes a redelivered message as a duplicate, and an overlapping replay as the new part only', async () => {
    const v = await verifier();
    await v.add(message(1, 3, range(1, 3)), webhookId(1, 3));
    await v.add(message(4, 6, range(4, 6)), webhookId(4, 6));
    expect(await v.add(message(4, 6, range(4, 6)), webhookId(4, 6))).toEqual({
      status: 'duplicate',
      fromSeq: 4,
      toSeq: 6,
    });
    expect(await v.add(message(5, 8, range(5, 8)), webhookId(5, 8))).toMatchObject({
      status: 'verified',
      entries: 2,
    });
    expect(v.deliveredThroughSeq).toBe(8);
    expect(v.break).toBeUndefined();
  });

  it('refuses a redelivery whose entries differ from the ones received: history rewritten after delivery', async () => {
    const v = await verifier();
    await v.add(message(1, 3, range(1, 3)));
    const rewritten = copy(at(2));
    rewritten.event = 'user.deleted';
    expect(await v.add(message(1, 3, [at(1), rewritten, at(3)]))).toEqual({
      status: 'invalid',
      seq: 2,
      reason: 'seq 2 is not the entry received for it before',
    });
    const { entryHash } = await import('@secadmin/log-chain');
    rewritten.hash = entryHash(rewritten.prevHash as string, rewritten);
    expect(await v.add(message(2, 4, [rewritten, at(3), at(4)]))).toMatchObject({
      status: 'invalid',
      seq: 2,
    });
    expect(await v.add(message(1, 3, range(1, 3)))).toMatchObject({ status: 'duplicate' });
  });

  it('goes on from a saved state after a restart: links, gaps and coverage carry over', async () => {
    const before = await verifier({ fromSeq: 1 });
    await before.add(message(1, 3, range(1, 3)));
    await before.add(message(4, 5, range(4, 5), checkpointOf(at(2))));
    const saved = JSON.parse(JSON.stringify(before.state()));
    expect(saved).toMatchObject({ stream: STREAM, deliveredThroughSeq: 5, coveredThroughSeq: 2 });

    const after = await verifier({ resume: saved });
    expect(after.deliveredThroughSeq).toBe(5);
    expect(await after.add(message(4, 5, range(4, 5)))).toMatchObject({ status: 'duplicate' });
    expect(await after.add(message(7, 8, range(7, 8)))).toMatchObject({
      status: 'invalid',
      seq: 6,
    });
    const forged = copy(at(6));
    forged.prevHash = 'e'.repeat(64);
    const { entryHash } = await import('@secadmin/log-chain');
    forged.hash = entryHash(forged.prevHash, forged);
    expect(await after.add(message(6, 6, [forged]))).toMatchObject({ status: 'invalid', seq: 6 });
    expect(await after.add(message(6, 8, range(6, 8), checkpointOf(at(5))))).toMatchObject({
      status: 'verified',
      coveredThroughSeq: 5,
    });
    expect(after.state().firstBreak).toEqual({
      seq: 6,
      reason: 'seq 6–6 never arrived: the range starts at 7',
    });
  });

  it('refuses a webhook-id that does not name the range, another stream, and malformed messages', async () => {
    const v = await verifier({ stream: STREAM });
    expect(await v.add(message(1, 3, range(1, 3)), webhookId(1, 2))).toMatchObject({
      status: 'invalid',
      reason: `webhook-id ${webhookId(1, 2)} does not name range 1–3`,
    });
    expect(await v.add({ ...message(1, 3, range(1, 3)), stream: 'lst_other' })).toMatchObject({
      reason: `the message is for stream lst_other, not ${STREAM}`,
    });
    const hostile: [unknown, string][] = [
      [null, 'the message is not a JSON object'],
      [[], 'the message is not a JSON object'],
      [{ ...message(1, 3, range(1, 3)), type: 'other' }, 'type "other" is not audit_log.entries'],
      [
        { ...message(1, 3, range(1, 3)), range: { fromSeq: '1', toSeq: 3 } },
        'range is not {fromSeq, toSeq} of seqs',
      ],
      [message(3, 1, range(1, 3)), 'range 3–1 is reversed'],
      [message(1, 3, []), 'entries is empty'],
      [{ ...message(1, 3, range(1, 3)), entries: {} }, 'entries is not an array'],
      [message(2, 3, range(1, 3)), 'entries[0] has seq 1, outside range 2–3'],
      [message(1, 3, [...range(1, 2), { ...at(3), seq: null }]), 'entries[2] is not sealed'],
      [
        message(1, 3, [...range(1, 2), { ...at(3), hash: 'x' }]),
        'entries[2].hash is not a lowercase hex SHA-256',
      ],
      [
        { ...message(1, 3, range(1, 3)), checkpoint: { seq: 3 } },
        'checkpoint is neither null nor {seq, hash, signature}',
      ],
      [
        message(1, 3, [...range(1, 2), { ...at(3), __proto__: { x: 1 }, extra: 1 } as ChainEntry]),
        'seq 3: extra is not a field of an entry',
      ],
    ];
    for (const [body, reason] of hostile)
      expect(await v.add(body)).toMatchObject({ status: 'invalid', reason });
    expect(v.deliveredThroughSeq).toBeUndefined();
  });

  it('checks where the first range starts when told, and accepts test messages', async () => {
    const v = await verifier({ fromSeq: 1 });
    expect(await v.add({ type: 'secadmin.test', stream: STREAM })).toEqual({ status: 'test' });
    expect(await v.add(message(2, 3, range(2, 3)))).toEqual({
      status: 'invalid',
      seq: 1,
      reason: 'the first range starts at 2, not 1',
    });
  });

  it('says a checkpoint is unchecked when no public key is given', async () => {
    const v = await StreamVerifier.create();
    expect(v.pinnedKey).toBeNull();
    expect(await v.add(message(1, 3, range(1, 3), checkpointOf(at(3))))).toMatchObject({
      status: 'verified',
      checkpoint: 'unchecked',
      coveredThroughSeq: null,
    });
  });

  it('refuses to start with a pinned key the material does not chain to', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const other = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    await expect(StreamVerifier.create({ publicKeyPem, expectedKey: other })).rejects.toThrow(
      /is not one of the keys/,
    );
  });
});

describe('StreamVerifier, a filtered stream', () => {
  it('accepts ranges wider than their entries, checks each entry and links consecutive ones', async () => {
    const v = await verifier({ filtered: true });
    const logins = (from: number, to: number) =>
      range(from, to).filter((e) => e.event === 'user.login');
    expect(await v.add(message(1, 4, logins(1, 4)))).toMatchObject({
      status: 'verified',
      entries: 2,
    });
    // Seq 9 matches its checkpoint, but nothing ties seq 1–7 to it.
    expect(await v.add(message(5, 9, logins(5, 9), checkpointOf(at(9))))).toMatchObject({
      status: 'verified',
      entries: 3,
      checkpoint: 'verified',
      coveredThroughSeq: null,
    });
    const forged = { ...checkpointOf(at(9)), seq: 11, signature: checkpointOf(at(9)).signature };
    expect(await v.add(message(10, 11, [at(11)], forged))).toMatchObject({
      status: 'invalid',
      reason: 'checkpoint 11 has an invalid signature',
    });
    const other = copy(at(11));
    other.traceId = 'other';
    const { entryHash } = await import('@secadmin/log-chain');
    other.hash = entryHash(other.prevHash as string, other);
    expect(await v.add(message(10, 11, [other], checkpointOf(at(11))))).toMatchObject({
      status: 'invalid',
      reason: 'checkpoint 11 does not match the hash of seq 11',
    });
    const strict = await verifier();
    expect(await strict.add(message(1, 4, logins(1, 4)))).toMatchObject({
      status: 'invalid',
      seq: 2,
    });
  });

  it('still finds a gap between ranges and an altered entry', async () => {
    const v = await verifier({ filtered: true });
    await v.add(message(1, 2, [at(1)]));
    expect(await v.add(message(4, 5, [at(5)]))).toMatchObject({ status: 'invalid', seq: 3 });
    const changed = copy(at(3));
    changed.result = 'failure';
    expect(await v.add(message(3, 5, [changed]))).toMatchObject({
      status: 'invalid',
      seq: 3,
      reason: 'hash of seq 3 does not match its content',
    });
  });
});
