import { describe, expect, it } from 'vitest';
import {
  absentFields,
  type ChainEntry,
  canonicalForm,
  type RedactionProof,
  type RedactionRecord,
  redactionsDigest,
  redactionsMetadata,
  verifyChain,
} from '../src/index.js';
import { checkpoint, entry, publicKeyPem, seal } from './fixture.js';

const STRIPPED = ['actor.email', 'target.id'];

/** Removes `actor.email` and `target.id` with their salts, as a redaction (or a forger) does. */
function strip(e: ChainEntry): void {
  e.actor.email = null;
  delete e.target?.id;
  for (const path of STRIPPED) delete e.salts[path];
}

/** The deletion of `u3`, the actor of entry 3 (the one stripped). */
const deletion = (n: number, redactions: unknown, origin = 'service', user = 'u3', type = 'user') =>
  entry(n, {
    event: 'user.deleted',
    origin,
    target: { type, id: user },
    metadata: { redactions },
  });

/**
 * Entries 1–10 (checkpoint at 10), then the `user.deleted` entry at 11 with `redactions`,
 * then 12–14 (checkpoint at 14). Entry 3 is stripped.
 */
function log(redactions: unknown, origin = 'service', user = 'u3', type = 'user') {
  const first = seal(Array.from({ length: 10 }, (_, i) => entry(i + 1)));
  const rest = seal(
    [deletion(11, redactions, origin, user, type), entry(12), entry(13), entry(14)],
    11,
    first[9]?.hash as string,
  );
  const entries = [...first, ...rest];
  strip(entries[2] as ChainEntry);
  const checkpoints = [
    checkpoint(10, first[9]?.hash as string),
    checkpoint(14, rest[3]?.hash as string),
  ];
  return { entries, checkpoints, stripped: entries[2] as ChainEntry };
}

const record = (e: ChainEntry, fields = STRIPPED): RedactionRecord => ({
  id: e.id,
  seq: e.seq,
  fields,
});

/** The `user.deleted` entry at 11 with the canonical forms that lead from it to checkpoint 14. */
const proofOf = (entries: ChainEntry[], records?: RedactionRecord[]): RedactionProof => ({
  entry: entries[10] as ChainEntry,
  following: entries.slice(11, 14).map(canonicalForm),
  ...(records ? { records } : {}),
});

/** The entries as a JSON export holds them: the stripped entry 3 carries `proofs`. */
const carrying = (entries: ChainEntry[], proofs: RedactionProof[]) =>
  entries.map((e, i) =>
    i === 2 ? { ...e, redactedBy: ['log_deletion'], redactionProofs: proofs } : e,
  );

describe('redaction records', () => {
  it('lists the fields an entry no longer holds: digests without a salt', () => {
    const [e] = seal([entry(1)]);
    strip(e as ChainEntry);
    expect(absentFields(e as ChainEntry)).toEqual(['actor.email', 'target.id']);
  });

  it('lists the records up to the limit, and above it gives their count and digest', () => {
    const records = [1, 2, 3].map((seq) => ({ id: `e${seq}`, seq, fields: ['actor.email'] }));
    expect(redactionsMetadata(records, 3)).toBe(records);
    expect(redactionsMetadata(records, 2)).toEqual({
      count: 3,
      sha256: redactionsDigest(records),
    });
    expect(redactionsDigest(records)).toMatch(/^[0-9a-f]{64}$/);
    expect(redactionsDigest(records.slice(1))).not.toBe(redactionsDigest(records));
  });
});

describe('verifyChain and redacted fields', () => {
  it('takes a metadata value "[redacted]" sent as such, with its salt, as a value (not a redaction)', async () => {
    const written = seal([entry(1, { metadata: { x: '[redacted]', y: 'kept' } })]);
    const one = written[0] as ChainEntry;
    const checkpoints = [checkpoint(1, one.hash as string)];
    expect(await verifyChain({ entries: written, checkpoints, publicKeyPem })).toMatchObject({
      valid: true,
      checkedEntries: 1,
    });
    // Its salt removed, it is a redaction that no record names.
    const stripped = structuredClone(one);
    delete stripped.salts['metadata.x'];
    expect((await verifyChain({ entries: [stripped], checkpoints, publicKeyPem })).reason).toBe(
      `metadata.x of entry ${one.id} (seq 1) is absent, and no redaction record names it`,
    );
  });

  it('fails a stripped entry that no record names, naming the entry and the field', async () => {
    const { entries, checkpoints, stripped } = log([]);
    const result = await verifyChain({ entries, checkpoints, publicKeyPem });
    expect(result).toMatchObject({
      valid: false,
      firstInvalidSeq: 3,
      reason: `actor.email of entry ${stripped.id} (seq 3) is absent, and no redaction record names it`,
    });
  });

  it('takes the records of a service user.deleted entry among the entries, and counts the fields', async () => {
    const { entries, checkpoints, stripped } = log([]);
    const real = log([record(stripped)]);
    expect(await verifyChain({ ...real, publicKeyPem })).toMatchObject({
      valid: true,
      redactedFields: 2,
    });
    // The same entries without the record: the stripped fields are not accounted for.
    expect((await verifyChain({ entries, checkpoints, publicKeyPem })).valid).toBe(false);
  });

  it('takes no record from a user.deleted entry after the last checkpoint: anyone can append one', async () => {
    const { stripped } = log([]);
    const real = log([record(stripped)]);
    const [first] = real.checkpoints;
    expect(
      await verifyChain({ entries: real.entries, checkpoints: [first as never], publicKeyPem }),
    ).toMatchObject({
      valid: false,
      firstInvalidSeq: 3,
      reason: `actor.email of entry ${stripped.id} (seq 3) is absent, and no redaction record names it`,
    });
    // The same deletion led to a checkpoint by a proof counts.
    const proven = carrying(real.entries, [
      { ...proofOf(real.entries), checkpoint: real.checkpoints[1] } as RedactionProof,
    ]);
    expect(
      await verifyChain({ entries: proven, checkpoints: [first as never], publicKeyPem }),
    ).toMatchObject({ valid: true, redactedFields: 2 });
  });

  it('fails a field the record does not name, or a record for another seq', async () => {
    const { stripped } = log([]);
    const partial = log([record(stripped, ['actor.email'])]);
    expect((await verifyChain({ ...partial, publicKeyPem })).reason).toBe(
      `target.id of entry ${stripped.id} (seq 3) is absent, and no redaction record names it`,
    );
    const elsewhere = log([{ ...record(stripped), seq: 4 }]);
    expect((await verifyChain({ ...elsewhere, publicKeyPem })).valid).toBe(false);
  });

  it('takes no record from the deletion of a user the entry is not about (actor or target user)', async () => {
    const { stripped } = log([]);
    const other = log([record(stripped)], 'service', 'u9');
    expect(await verifyChain({ ...other, publicKeyPem })).toMatchObject({
      valid: false,
      firstInvalidSeq: 3,
      reason: `actor.email of entry ${stripped.id} (seq 3) is absent, and no redaction record names it`,
    });
    // Nor from the deletion of something other than a user that bears the same id.
    const notUser = log([record(stripped)], 'service', 'u3', 'api_key');
    expect((await verifyChain({ ...notUser, publicKeyPem })).firstInvalidSeq).toBe(3);
  });

  it('takes no record from an ingested user.deleted entry: anyone can send one', async () => {
    const { stripped } = log([]);
    const ingested = log([record(stripped)], 'api');
    expect((await verifyChain({ ...ingested, publicKeyPem })).firstInvalidSeq).toBe(3);
  });

  it('takes a user.deleted entry after the export, proven by the canonical forms up to a checkpoint', async () => {
    const { stripped } = log([]);
    const full = log([record(stripped)]);
    const run = full.entries.slice(0, 10);
    const proof = proofOf(full.entries);
    const verify = (redactions: RedactionProof[]) =>
      verifyChain({
        entries: carrying(run, redactions),
        checkpoints: full.checkpoints,
        publicKeyPem,
      });
    expect(await verify([proof])).toMatchObject({ valid: true, redactedFields: 2 });
    expect((await verify([])).valid).toBe(false);
    // A proof counts for every entry of the file, whichever entry carries it.
    const elsewhere = run.map((e, i) => (i === 7 ? { ...e, redactionProofs: [proof] } : e));
    expect(
      await verifyChain({ entries: elsewhere, checkpoints: full.checkpoints, publicKeyPem }),
    ).toMatchObject({ valid: true, redactedFields: 2 });
    expect(
      (
        await verifyChain({
          entries: run.map((e, i) => (i === 7 ? { ...e, redactionProofs: proof } : e)) as never,
          checkpoints: full.checkpoints,
          publicKeyPem,
        })
      ).reason,
    ).toBe('entries[7].redactionProofs is not an array');

    const forgedLink = { ...proof, following: [...proof.following.slice(0, 2), 'forged'] };
    expect(await verify([forgedLink])).toMatchObject({
      valid: false,
      firstInvalidSeq: 11,
      reason: 'entries[2].redactionProofs[0]: seq 11 does not lead to the hash of checkpoint 14',
    });
    const edited = structuredClone(proof);
    (edited.entry.metadata as { redactions: RedactionRecord[] }).redactions.push(
      record(run[4] as ChainEntry),
    );
    expect((await verify([edited])).valid).toBe(false);
  });

  it('refuses a proof that reaches no checkpoint: a made-up user.deleted entry links to nothing', async () => {
    const { stripped } = log([]);
    const full = log([record(stripped)]);
    const run = full.entries.slice(0, 10);
    const verify = (proof: RedactionProof) =>
      verifyChain({ entries: carrying(run, [proof]), checkpoints: [], publicKeyPem });
    const short = { ...proofOf(full.entries), following: [] };
    expect(
      await verifyChain({
        entries: carrying(run, [short]),
        checkpoints: full.checkpoints,
        publicKeyPem,
      }),
    ).toMatchObject({
      valid: false,
      firstInvalidSeq: 11,
      reason:
        'entries[2].redactionProofs[0]: seq 11 is not proven: the entries given after it end at seq 11, before any signed checkpoint',
    });
    // Nor when the verifier knows no checkpoint after it (a forger claims a recent deletion).
    expect((await verify(short)).valid).toBe(false);
    // A proof carries the checkpoint it reaches, for a verifier whose checkpoints stop before.
    const withCheckpoint = { ...proofOf(full.entries), checkpoint: full.checkpoints[1] };
    expect(
      await verifyChain({
        entries: carrying(run, [withCheckpoint as RedactionProof]),
        checkpoints: full.checkpoints.slice(0, 1),
        publicKeyPem,
      }),
    ).toMatchObject({ valid: true, redactedFields: 2 });
    // …whose signature is checked like any other.
    const forged = {
      ...withCheckpoint,
      checkpoint: { ...full.checkpoints[1], signature: full.checkpoints[0]?.signature },
    };
    expect(
      await verifyChain({
        entries: carrying(run, [forged as RedactionProof]),
        checkpoints: full.checkpoints.slice(0, 1),
        publicKeyPem,
      }),
    ).toMatchObject({
      valid: false,
      reason: 'entries[2].redactionProofs[0]: checkpoint 14 has an invalid signature',
    });
    expect((await verify({ ...withCheckpoint, checkpoint: { seq: 14 } } as never)).reason).toBe(
      'entries[2].redactionProofs[0]: checkpoint is not {seq, hash, signature}',
    );
  });

  it('checks a summary (count and digest) against the records given beside it', async () => {
    const { stripped } = log([]);
    const records = [record(stripped)];
    const summarized = log(redactionsMetadata(records, 0));
    const run = summarized.entries.slice(0, 10);
    const verify = (proof: RedactionProof) =>
      verifyChain({
        entries: carrying(run, [proof]),
        checkpoints: summarized.checkpoints,
        publicKeyPem,
      });
    expect(await verify(proofOf(summarized.entries, records))).toMatchObject({
      valid: true,
      redactedFields: 2,
    });
    expect((await verify(proofOf(summarized.entries))).reason).toBe(
      'entries[2].redactionProofs[0]: seq 11 holds a summary, and no records are given',
    );
    const other = [record(run[4] as ChainEntry)];
    expect((await verify(proofOf(summarized.entries, other))).reason).toBe(
      'entries[2].redactionProofs[0]: the records given do not match the count and digest of seq 11',
    );
  });

  it('refuses a proof of another entry at a seq the run holds', async () => {
    const { stripped } = log([]);
    const real = log([]);
    const forged = log([record(stripped)]);
    const result = await verifyChain({
      entries: carrying(real.entries, [{ entry: forged.entries[10] as ChainEntry, following: [] }]),
      checkpoints: real.checkpoints,
      publicKeyPem,
    });
    expect(result).toMatchObject({
      valid: false,
      reason: 'entries[2].redactionProofs[0]: seq 11 is not the entry the chain holds at that seq',
    });
  });
});
