import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ChainEntry,
  ChainVerifier,
  type Checkpoint,
  entryHash,
  REDACTED,
  verifyChain,
} from '../src/index.js';
import { checkpoint, entry, publicKeyPem, seal } from './fixture.js';

function chain(n: number): { entries: ChainEntry[]; checkpoints: Checkpoint[] } {
  const entries = seal(Array.from({ length: n }, (_, i) => entry(i + 1)));
  const at = (seq: number) => checkpoint(seq, entries[seq - 1]?.hash as string);
  return { entries, checkpoints: [at(4), at(8)] };
}

/** Recomputes hash and prevHash from `from` (a 0-based index) on, as a forger would. */
function rehash(entries: ChainEntry[], from: number): void {
  for (let i = from; i < entries.length; i++) {
    const item = entries[i] as ChainEntry;
    if (i > 0) item.prevHash = entries[i - 1]?.hash as string;
    item.hash = entryHash(item.prevHash as string, item);
  }
}

const verify = (entries: ChainEntry[], checkpoints: Checkpoint[]) =>
  verifyChain({ entries, checkpoints, publicKeyPem });

describe('verifyChain', () => {
  it('accepts an intact chain, in any order, counting unsealed and uncovered entries apart', async () => {
    const { entries, checkpoints } = chain(10);
    const unsealed = {
      ...entry(11),
      seq: null,
      hash: null,
      prevHash: null,
      digests: {},
      salts: {},
    };
    const result = await verify([...entries].reverse().concat(unsealed), checkpoints);
    expect(result).toEqual({
      valid: true,
      checkedEntries: 10,
      lastCheckpointSeq: 8,
      pinnedKey: null,
      unsealedEntries: 1,
      uncoveredEntries: 2,
      truncatedEntries: 0,
    });
  });

  it('accepts redacted fields (value and salt removed, digest kept) that a redaction record names', async () => {
    const { entries, checkpoints } = chain(10);
    const e = entries[2] as ChainEntry;
    e.actor.email = null;
    delete e.target?.id;
    (e.metadata as Record<string, unknown>).tags = REDACTED;
    const fields = ['actor.email', 'metadata.tags', 'target.id'];
    for (const path of fields) delete e.salts[path];
    const [deletion] = seal(
      [
        entry(11, {
          event: 'user.deleted',
          origin: 'service',
          target: { type: 'user', id: e.actor.id as string },
          metadata: { redactions: [{ id: e.id, seq: 3, fields }] },
        }),
      ],
      11,
      entries[9]?.hash as string,
    );
    const all = [...entries, deletion as ChainEntry];
    const result = await verify(all, [...checkpoints, checkpoint(11, deletion?.hash as string)]);
    expect(result).toMatchObject({ valid: true, redactedFields: 3 });
    expect((await verify(entries, checkpoints)).reason).toBe(
      `actor.email of entry ${e.id} (seq 3) is absent, and no redaction record names it`,
    );
  });

  it('takes metadata digests as they are when the entries carry no metadata at all', async () => {
    const { entries, checkpoints } = chain(10);
    for (const e of entries) delete e.metadata;
    expect((await verify(entries, checkpoints)).valid).toBe(true);
  });

  it('finds a changed field, committed directly or by a digest', async () => {
    for (const change of [
      (e: ChainEntry) => {
        e.event = 'user.logout';
      },
      (e: ChainEntry) => {
        e.actor.email = 'someone@example.com';
      },
      (e: ChainEntry) => {
        (e.metadata as Record<string, unknown>).n = 99;
      },
      (e: ChainEntry) => {
        (e.metadata as Record<string, unknown>).added = true;
      },
      (e: ChainEntry) => {
        delete e.salts['actor.email'];
      },
    ]) {
      const { entries, checkpoints } = chain(10);
      change(entries[5] as ChainEntry);
      const result = await verify(entries, checkpoints);
      expect(result).toMatchObject({ valid: false, firstInvalidSeq: 6, checkedEntries: 5 });
      expect(result.lastCheckpointSeq).toBe(4);
    }
  });

  it('finds a missing, a duplicated and a reordered entry', async () => {
    const missing = chain(10);
    missing.entries.splice(6, 1);
    expect(await verify(missing.entries, missing.checkpoints)).toMatchObject({
      valid: false,
      firstInvalidSeq: 7,
      reason: 'seq 7 is missing',
    });

    const swapped = chain(10);
    const [a, b] = [swapped.entries[2] as ChainEntry, swapped.entries[3] as ChainEntry];
    [a.seq, b.seq] = [b.seq, a.seq];
    expect(await verify(swapped.entries, swapped.checkpoints)).toMatchObject({
      valid: false,
      firstInvalidSeq: 3,
    });

    const twice = chain(10);
    twice.entries.push({ ...(twice.entries[9] as ChainEntry) });
    expect(await verify(twice.entries, twice.checkpoints)).toMatchObject({
      valid: false,
      firstInvalidSeq: 11,
    });
  });

  it('finds a forged chain by its checkpoints: mismatch or a bad signature', async () => {
    const forged = chain(10);
    (forged.entries[5] as ChainEntry).event = 'user.logout';
    rehash(forged.entries, 5);
    expect(await verify(forged.entries, forged.checkpoints)).toMatchObject({
      valid: false,
      firstInvalidSeq: 5,
      lastCheckpointSeq: 4,
      reason: "checkpoint 8 does not match the entries' hash at seq 8",
    });

    const other = generateKeyPairSync('ed25519').privateKey;
    const bogus = forged.checkpoints.map((c) =>
      c.seq === 8
        ? {
            seq: 8,
            hash: forged.entries[7]?.hash as string,
            signature: sign(null, Buffer.from('x'), other).toString('base64'),
          }
        : c,
    );
    expect(await verify(forged.entries, bogus)).toMatchObject({
      valid: false,
      firstInvalidSeq: 8,
      reason: 'checkpoint 8 has an invalid signature',
    });
  });

  it('verifies a range that starts after seq 1 against the checkpoint before it', async () => {
    const { entries, checkpoints } = chain(10);
    expect(await verify(entries.slice(4), checkpoints)).toEqual({
      valid: true,
      checkedEntries: 6,
      lastCheckpointSeq: 8,
      pinnedKey: null,
      unsealedEntries: 0,
      uncoveredEntries: 2,
      truncatedEntries: 0,
    });
    const tail = entries.slice(4);
    (tail[0] as ChainEntry).prevHash = 'f'.repeat(64);
    rehash(tail, 0);
    expect(await verify(tail, checkpoints)).toMatchObject({ valid: false, firstInvalidSeq: 5 });
  });

  it('gives the same answer when the entries come in batches (ChainVerifier)', async () => {
    const forged = chain(10);
    (forged.entries[5] as ChainEntry).event = 'user.logout';
    rehash(forged.entries, 5);
    const verifier = await ChainVerifier.create({ checkpoints: forged.checkpoints, publicKeyPem });
    for (let i = 0; i < 10; i += 3) await verifier.add(forged.entries.slice(i, i + 3));
    expect(await verify(forged.entries, forged.checkpoints)).toMatchObject(await verifier.finish());
    expect(verifier.failed).toBe(true);
  });

  it('takes the stored hash of a link whose entry was removed on purpose (retention)', async () => {
    const { entries, checkpoints } = chain(10);
    const verifier = await ChainVerifier.create({ checkpoints, publicKeyPem });
    await verifier.add(entries.slice(0, 3));
    for (const gone of entries.slice(3, 5))
      expect(
        await verifier.removed({
          seq: gone.seq as number,
          hash: gone.hash as string,
          prevHash: gone.prevHash as string,
        }),
      ).toBe(true);
    await verifier.add(entries.slice(5));
    expect(await verifier.finish()).toEqual({
      valid: true,
      checkedEntries: 8,
      lastCheckpointSeq: 8,
    });

    const forged = await ChainVerifier.create({ checkpoints, publicKeyPem });
    await forged.add(entries.slice(0, 3));
    await forged.removed({ seq: 4, hash: 'f'.repeat(64), prevHash: entries[2]?.hash as string });
    expect(await forged.finish()).toMatchObject({
      valid: false,
      firstInvalidSeq: 1,
      reason: "checkpoint 4 does not match the entries' hash at seq 4",
    });
  });

  it('checks checkpoints beyond the entries too', async () => {
    const { entries, checkpoints } = chain(10);
    const result = await verify(entries.slice(0, 3), [
      ...checkpoints,
      { ...checkpoint(20, 'a'.repeat(64)), signature: 'AAAA' },
    ]);
    expect(result).toMatchObject({ valid: false, firstInvalidSeq: 20 });
  });

  it('vouches for nothing no signature covers: a forged run without checkpoints is not valid', async () => {
    const { entries } = chain(5);
    expect(await verify(entries, [])).toEqual({
      valid: false,
      checkedEntries: 5,
      lastCheckpointSeq: null,
      reason: 'no checkpoint covers seq 1–5: no signature vouches for these entries',
      pinnedKey: null,
      unsealedEntries: 0,
      uncoveredEntries: 0,
      truncatedEntries: 0,
    });
  });

  it('calls input that is not made of full entries invalid, and never throws', async () => {
    const { entries, checkpoints } = chain(10);
    const cases: [unknown, unknown, RegExp][] = [
      [{ not: 'an array' }, checkpoints, /^entries is not an array$/],
      [[null], checkpoints, /^entries\[0\] is not an object$/],
      [[{ ...entries[0], actor: undefined }], checkpoints, /^entries\[0\]\.actor has no type$/],
      [[{ ...entries[0], seq: -5 }], checkpoints, /^entries\[0\]\.seq is not an integer ≥ 1$/],
      [[{ ...entries[0], seq: 1.5 }], checkpoints, /seq is not an integer/],
      [[{ ...entries[0], hash: 'x' }], checkpoints, /hash is not a lowercase hex SHA-256/],
      [[{ ...entries[0], digests: null }], checkpoints, /digests is not an object/],
      [entries, 'nope', /^checkpoints is not an array$/],
      [entries, [{ seq: 0, hash: 'a', signature: 'b' }], /checkpoints\[0\] is not/],
      [entries, [checkpoints[0], checkpoints[0]], /^checkpoint 4 is given twice$/],
    ];
    for (const [given, checkpointsGiven, reason] of cases) {
      const result = await verifyChain({
        entries: given as ChainEntry[],
        checkpoints: checkpointsGiven as Checkpoint[],
        publicKeyPem,
      });
      expect(result.valid, String(reason)).toBe(false);
      expect(result.reason).toMatch(reason);
    }
    expect(await verifyChain({ entries, checkpoints, publicKeyPem: 'not a key' })).toMatchObject({
      valid: false,
      reason: /not an Ed25519 public key/,
    });
  });
});

describe('verifyChain and the shape of entries (L2, L3)', () => {
  /** A chain sealed under v1 up to seq 5 and under v2 after it, as a server upgraded then. */
  function mixed(n: number): { entries: ChainEntry[]; checkpoints: Checkpoint[] } {
    const v1 = seal(
      Array.from({ length: 5 }, (_, i) => entry(i + 1)),
      1,
      undefined,
      1,
    );
    const v2 = seal(
      Array.from({ length: n - 5 }, (_, i) => entry(i + 6)),
      6,
      v1[4]?.hash as string,
      2,
    );
    const entries = [...v1, ...v2];
    const at = (seq: number) => checkpoint(seq, entries[seq - 1]?.hash as string);
    return { entries, checkpoints: [at(4), at(8)] };
  }

  it('verifies a chain sealed as v1 and continued as v2', async () => {
    const { entries, checkpoints } = mixed(10);
    expect(entries.map((e) => e.canonicalVersion ?? 1)).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    expect(await verify(entries, checkpoints)).toMatchObject({
      valid: true,
      checkedEntries: 10,
      lastCheckpointSeq: 8,
    });
  });

  const at = (seq: number) => (e: ChainEntry[]) => e[seq - 1] as ChainEntry;
  const cases: [string, (e: ChainEntry) => void, string][] = [
    [
      'a metadata key added as "[redacted]"',
      (e) => Object.assign(e.metadata as object, { approvedBy: REDACTED }),
      'metadata.approvedBy is not committed by a digest',
    ],
    [
      'an unknown top-level field',
      (e) => Object.assign(e, { approvedBy: 'ceo' }),
      'approvedBy is not a field of an entry',
    ],
    [
      'an unknown nested field',
      (e) => Object.assign(e.actor, { role: 'admin' }),
      'actor.role is not a field of an entry',
    ],
    ['a known field added as null', (e) => Object.assign(e, { traceId: null }), 'traceId is null'],
    [
      'a salt without a digest',
      (e) => Object.assign(e.salts, { 'metadata.ghost': '0'.repeat(32) }),
      'metadata.ghost has a salt but no digest',
    ],
    [
      'metadata emptied and its salts removed',
      (e) => {
        e.metadata = {};
        for (const path of Object.keys(e.salts))
          if (path.startsWith('metadata.')) delete e.salts[path];
      },
      'metadata.n has a digest but no field',
    ],
    [
      'the metadata object removed from one entry',
      (e) => delete e.metadata,
      'seq 6 shows no metadata, other entries do',
    ],
    [
      'an unknown canonical form version',
      (e) => Object.assign(e, { canonicalVersion: 3 }),
      'canonicalVersion 3 is not a version this verifier knows',
    ],
  ];
  for (const [what, change, reason] of cases)
    it(`finds ${what}, in a v1 entry and in a v2 entry`, async () => {
      for (const seq of [3, 6]) {
        const { entries, checkpoints } = mixed(10);
        change(at(seq)(entries));
        expect(await verify(entries, checkpoints), `seq ${seq}`).toMatchObject({
          valid: false,
          firstInvalidSeq: seq,
          reason: reason.replace('seq 6', `seq ${seq}`),
        });
      }
    });

  it('still takes an export made without metadata, for every entry', async () => {
    const { entries, checkpoints } = mixed(10);
    for (const e of entries) delete e.metadata;
    expect(await verify(entries, checkpoints)).toMatchObject({
      valid: true,
      checkedEntries: 10,
      metadataOmitted: true,
    });
  });

  it('counts the entries a checkpoint proves exist after the last one given (a cut-off head)', async () => {
    const { entries, checkpoints } = mixed(10);
    expect(await verify(entries.slice(0, 6), checkpoints)).toEqual({
      valid: true,
      checkedEntries: 6,
      lastCheckpointSeq: 4,
      pinnedKey: null,
      unsealedEntries: 0,
      uncoveredEntries: 2,
      truncatedEntries: 2,
    });
    expect((await verify(entries, checkpoints)).truncatedEntries).toBe(0);
  });
});
