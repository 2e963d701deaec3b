import { checkpointMessage, entryHash, GENESIS_HASH } from './canonical.js';
import { entryProblem, metadataOmitted, missingMetadata, truncatedAfter } from './entry-checks.js';
import { KeySchedule, verifySignature } from './keys.js';
import { absentFields, REDACTION_EVENT, redactionsDigest, redactionsOf } from './redactions.js';
import { sha256Hex } from './sha256.js';
import type {
  ChainEntry,
  Checkpoint,
  ExportedEntry,
  RedactionProof,
  RedactionRecord,
  VerifyInput,
  VerifyResult,
} from './types.js';

/** Whether `checkpoint.signature` is the key's signature over its checkpoint message. */
export function verifyCheckpointSignature(
  key: CryptoKey,
  checkpoint: Checkpoint,
): Promise<boolean> {
  return verifySignature(
    key,
    checkpoint.signature,
    checkpointMessage(checkpoint.seq, checkpoint.hash),
  );
}

export type VerifierOptions = Omit<VerifyInput, 'entries'>;

/** An entry checked that no longer holds some of its committed fields. */
interface Absent {
  seq: number;
  id: string;
  fields: string[];
  /** Whom the entry shows it is about: its actor's id, and its target's id if a user. */
  actorId: string | undefined;
  targetUser: string | undefined;
}

/** Redaction records with the user whose deletion made them (`deletedUser`). */
interface Named {
  record: RedactionRecord;
  user: string | undefined;
}

/**
 * Verifies a run of consecutive sealed entries given in seq order, in as many `add` calls
 * as the caller likes (a server streams the chain in batches; memory holds one batch and
 * the checkpoints). The first failure in seq order is kept; later calls change nothing.
 */
export class ChainVerifier {
  private readonly checkpoints: Checkpoint[];
  private readonly bySeq = new Map<number, Checkpoint>();
  private checked = 0;
  private lastCheckpointSeq: number | null = null;
  private firstSeq: number | undefined;
  private expectedSeq: number | undefined;
  private prevHash: string | undefined;
  private failure: VerifyResult | undefined;
  private readonly absent: Absent[] = [];
  /** Redaction records by altered entry id, from `user.deleted` entries walked or proven. */
  private readonly named = new Map<string, Named[]>();
  /** The hashes of the `user.deleted` entries walked, by seq. */
  private readonly deletions = new Map<number, string>();
  /**
   * The records of `user.deleted` entries walked that no checkpoint walked covers yet: they
   * count once one does, or once a proof leads them to one (anyone can append a made-up
   * deletion after the last checkpoint).
   */
  private uncoveredRecords: {
    seq: number;
    records: readonly RedactionRecord[];
    user: string | undefined;
  }[] = [];

  private constructor(
    private readonly keys: KeySchedule,
    checkpoints: readonly Checkpoint[],
    private readonly expectFirstPrevHash: string | undefined,
  ) {
    this.checkpoints = [...checkpoints].sort((a, b) => a.seq - b.seq);
    for (const checkpoint of this.checkpoints) this.bySeq.set(checkpoint.seq, checkpoint);
  }

  /** Throws when the keys do not chain to the pinned one (see `KeySchedule.trust`). */
  static async create(options: VerifierOptions): Promise<ChainVerifier> {
    const keys = await KeySchedule.trust(
      options.publicKeys ?? [{ publicKey: options.publicKeyPem, fromSeq: 1 }],
      options.expectedKey,
    );
    return new ChainVerifier(keys, options.checkpoints, options.expectFirstPrevHash);
  }

  /** The fingerprint of the pinned key, or null when the caller pinned none. */
  get pinnedKey(): string | null {
    return this.keys.pinned;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** The next sealed entries, in seq order. Resolves to false once the chain failed. */
  async add(entries: readonly ChainEntry[]): Promise<boolean> {
    for (const entry of entries) {
      if (this.failure) return false;
      await this.check(entry);
    }
    return !this.failure;
  }

  /**
   * A chain link whose entry was removed on purpose (retention): its seq and `prevHash`
   * must follow on, and its stored `hash` is taken as it is. It is not counted as checked.
   */
  async removed(link: { seq: number; hash: string; prevHash: string }): Promise<boolean> {
    if (this.failure) return false;
    if (!(await this.follows(link.seq, link.prevHash))) return false;
    if (await this.checkpointAt(link.seq, link.hash)) return false;
    this.prevHash = link.hash;
    this.expectedSeq = link.seq + 1;
    return true;
  }

  /** The ids of the entries checked so far whose absent fields no record walked names yet. */
  unaccounted(): string[] {
    this.countCoveredRecords();
    return this.absent
      .filter((entry) => entry.fields.some((field) => !this.names(entry, field)))
      .map((entry) => entry.id);
  }

  /**
   * `user.deleted` entries from outside the walk, each with what proves it (see
   * `RedactionProof`): the canonical forms after it must lead to the hash of a signed
   * checkpoint, one of the walk's or the one the proof carries (whose signature is checked
   * too). The records of a proven one count; anything else fails the verification, naming
   * the entry's seq and, before it, `where` the proofs came from.
   */
  async addRedactions(proofs: readonly RedactionProof[], where = 'redactions'): Promise<boolean> {
    for (const [i, proof] of proofs.entries()) {
      if (this.failure) return false;
      const outcome = await this.prove(proof);
      if (typeof outcome === 'string') {
        const seq = isSeq(proof?.entry?.seq) ? proof.entry.seq : undefined;
        this.failure = {
          valid: false,
          checkedEntries: this.checked,
          lastCheckpointSeq: this.lastCheckpointSeq,
          ...(seq === undefined ? {} : { firstInvalidSeq: seq }),
          reason: `${where}[${i}]: ${outcome}`,
        };
        return false;
      }
      this.name(outcome, deletedUser(proof.entry));
    }
    return true;
  }

  /** The result; checkpoints beyond the entries have their signatures checked. */
  async finish(): Promise<VerifyResult> {
    if (this.failure) return this.failure;
    this.countCoveredRecords();
    const redactedFields = this.accountForRedactions();
    if (this.failure) return this.failure;
    const first = this.firstSeq;
    const last = (this.expectedSeq ?? 1) - 1;
    for (const checkpoint of this.checkpoints) {
      if (first !== undefined && checkpoint.seq >= first - 1 && checkpoint.seq <= last) continue;
      if (!(await this.signed(checkpoint)))
        return this.fail(checkpoint.seq, `checkpoint ${checkpoint.seq} has an invalid signature`);
    }
    const uncovered = this.uncoveredRange();
    if (uncovered)
      return {
        valid: false,
        checkedEntries: this.checked,
        lastCheckpointSeq: this.lastCheckpointSeq,
        reason: uncovered,
      };
    return {
      valid: true,
      checkedEntries: this.checked,
      lastCheckpointSeq: this.lastCheckpointSeq,
      ...(redactedFields > 0 ? { redactedFields } : {}),
    };
  }

  /** The records of walked deletions that a checkpoint walked now covers count. */
  private countCoveredRecords(): void {
    const covered = this.lastCheckpointSeq ?? 0;
    for (const { seq, records, user } of this.uncoveredRecords)
      if (seq <= covered) this.name(records, user);
    this.uncoveredRecords = this.uncoveredRecords.filter(({ seq }) => seq > covered);
  }

  private name(records: readonly RedactionRecord[], user: string | undefined): void {
    for (const record of records) {
      const named = this.named.get(record.id);
      if (named) named.push({ record, user });
      else this.named.set(record.id, [{ record, user }]);
    }
  }

  /**
   * Whether a record names `field` of the entry (by its id, and by its seq if it has one), made
   * by the deletion of a user the entry shows it is about: its actor, or its target user. A
   * deletion redacts only entries linked to its user, and a forged one (appended where no
   * checkpoint covers it yet, by someone with write access to the database) cannot reach
   * further than the entries of the user it names.
   */
  private names(entry: Absent, field: string): boolean {
    return (this.named.get(entry.id) ?? []).some(
      ({ record, user }) =>
        (record.seq === null || record.seq === entry.seq) &&
        record.fields.includes(field) &&
        Boolean(user) &&
        (entry.actorId === user || entry.targetUser === user),
    );
  }

  /**
   * Every committed field absent from an entry must be named by a redaction record: one
   * removed by anyone else (a stripped export) fails, naming the first such entry and field.
   * Returns how many absent fields were accounted for.
   */
  private accountForRedactions(): number {
    let count = 0;
    for (const entry of this.absent)
      for (const field of entry.fields) {
        if (!this.names(entry, field)) {
          this.fail(
            entry.seq,
            `${field} of entry ${entry.id} (seq ${entry.seq}) is absent, and no redaction record names it`,
          );
          return count;
        }
        count++;
      }
    return count;
  }

  /**
   * The records a `user.deleted` entry from outside the walk proves, or why it proves none.
   */
  private async prove(proof: RedactionProof): Promise<readonly RedactionRecord[] | string> {
    if (!isObject(proof) || !Array.isArray(proof.following)) return 'is not {entry, following}';
    if (proof.following.some((text) => typeof text !== 'string'))
      return 'following holds a value that is not a canonical form';
    const carried = proof.checkpoint;
    if (carried !== undefined && checkpointsProblem([carried]))
      return 'checkpoint is not {seq, hash, signature}';
    const { entry } = proof;
    const shape = entryShapeProblem(entry, 0);
    if (shape) return shape.replace('entries[0]', 'entry');
    if (entry.seq === null) return 'its entry is not sealed';
    if (entry.event !== REDACTION_EVENT || entry.origin !== 'service')
      return `seq ${entry.seq} is not a service ${REDACTION_EVENT} entry`;
    const problem = entryProblem(entry);
    if (problem) return `seq ${entry.seq}: ${problem}`;
    let hash = entryHash(entry.prevHash as string, entry);
    if (hash !== entry.hash) return `hash of seq ${entry.seq} does not match its content`;
    const walked =
      this.firstSeq !== undefined &&
      entry.seq >= this.firstSeq &&
      entry.seq < (this.expectedSeq ?? 0);
    if (walked && this.deletions.get(entry.seq) !== hash)
      return `seq ${entry.seq} is not the entry the chain holds at that seq`;
    const held = redactionsOf(entry);
    if (!held) return `seq ${entry.seq} names no redaction records`;
    let records: readonly RedactionRecord[];
    if ('records' in held) records = held.records;
    else {
      const given = proof.records;
      if (!Array.isArray(given))
        return `seq ${entry.seq} holds a summary, and no records are given`;
      if (given.length !== held.summary.count || redactionsDigest(given) !== held.summary.sha256)
        return `the records given do not match the count and digest of seq ${entry.seq}`;
      records = given;
    }
    let seq = entry.seq;
    for (let i = 0; ; i++) {
      const checkpoint = this.bySeq.get(seq) ?? (carried?.seq === seq ? carried : undefined);
      if (checkpoint) {
        if (!(await this.signed(checkpoint))) return `checkpoint ${seq} has an invalid signature`;
        if (checkpoint.hash !== hash)
          return `seq ${entry.seq} does not lead to the hash of checkpoint ${seq}`;
        return records;
      }
      const text = proof.following[i];
      // A proof that reaches no checkpoint proves nothing: anyone can make up a user.deleted
      // entry that links to nothing and names the fields they stripped.
      if (text === undefined)
        return `seq ${entry.seq} is not proven: the entries given after it end at seq ${seq}, before any signed checkpoint`;
      hash = sha256Hex(`${hash}\n${text}`);
      seq++;
    }
  }

  /** Whether an entry at `seq` with `prevHash` may come next (the first one starts the run). */
  private async follows(seq: number, prevHash: string | null): Promise<boolean> {
    if (this.firstSeq === undefined) {
      this.firstSeq = seq;
      this.expectedSeq = seq;
      this.prevHash = this.expectFirstPrevHash ?? (seq === 1 ? GENESIS_HASH : (prevHash ?? ''));
      if (await this.checkpointAt(seq - 1, this.prevHash)) return false;
    }
    if (seq !== this.expectedSeq) {
      const expected = this.expectedSeq as number;
      this.fail(
        expected,
        seq < expected ? `seq ${seq} appears twice` : `seq ${expected} is missing`,
      );
      return false;
    }
    if (prevHash !== this.prevHash) {
      this.fail(seq, `prevHash of seq ${seq} is not the hash of seq ${seq - 1}`);
      return false;
    }
    return true;
  }

  private async check(entry: ChainEntry): Promise<void> {
    const seq = entry.seq as number;
    const problem = entryProblem(entry);
    if (!(await this.follows(seq, entry.prevHash))) return;
    if (problem) {
      this.fail(seq, problem);
      return;
    }
    const prevHash = this.prevHash as string;
    const hash = entryHash(prevHash, entry);
    if (entry.hash !== hash) {
      this.fail(seq, `hash of seq ${seq} does not match its content`);
      return;
    }
    if (await this.checkpointAt(seq, hash)) return;
    const absent = absentFields(entry);
    if (absent.length > 0)
      this.absent.push({
        seq,
        id: entry.id,
        fields: absent,
        actorId: entry.actor.id ?? undefined,
        targetUser: entry.target?.type === 'user' ? (entry.target.id ?? undefined) : undefined,
      });
    if (entry.event === REDACTION_EVENT) this.deletions.set(seq, hash);
    const held = redactionsOf(entry);
    if (held && 'records' in held)
      this.uncoveredRecords.push({
        seq,
        records: held.records,
        user: deletedUser(entry),
      });
    this.checked++;
    this.prevHash = hash;
    this.expectedSeq = seq + 1;
  }

  /** Checks the checkpoint at `seq`, if any, against `hash`; true when it failed. */
  private async checkpointAt(seq: number, hash: string): Promise<boolean> {
    const checkpoint = this.bySeq.get(seq);
    if (!checkpoint) return false;
    if (!(await this.signed(checkpoint))) {
      this.fail(seq, `checkpoint ${seq} has an invalid signature`);
      return true;
    }
    if (checkpoint.hash !== hash) {
      this.fail(
        this.lastCheckpointSeq === null ? (this.firstSeq as number) : this.lastCheckpointSeq + 1,
        `checkpoint ${seq} does not match the entries' hash at seq ${seq}`,
      );
      return true;
    }
    this.lastCheckpointSeq = seq;
    return false;
  }

  private signed(checkpoint: Checkpoint): Promise<boolean> {
    return verifyCheckpointSignature(this.keys.forSeq(checkpoint.seq), checkpoint);
  }

  /**
   * Entries that link up but that no verified checkpoint at or after one of them vouches
   * for could have been rewritten and re-hashed by anyone: a run of them alone is not valid.
   */
  private uncoveredRange(): string | undefined {
    const first = this.firstSeq;
    if (first === undefined || this.checked === 0) return undefined;
    if (this.lastCheckpointSeq !== null && this.lastCheckpointSeq >= first) return undefined;
    const last = (this.expectedSeq ?? first) - 1;
    return `no checkpoint covers seq ${first}–${last}: no signature vouches for these entries`;
  }

  private fail(seq: number, reason: string): VerifyResult {
    this.failure = {
      valid: false,
      checkedEntries: this.checked,
      lastCheckpointSeq: this.lastCheckpointSeq,
      firstInvalidSeq: seq,
      reason,
    };
    return this.failure;
  }
}

/** The user a `user.deleted` entry is the deletion of: its target, when a user with an id. */
const deletedUser = (entry: ChainEntry): string | undefined =>
  entry.target?.type === 'user' && entry.target.id ? entry.target.id : undefined;

const HEX_HASH = /^[0-9a-f]{64}$/;
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSeq = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;

/** Why an input entry cannot be checked at all (not JSON of a full entry), or undefined. */
export function entryShapeProblem(entry: unknown, index: number): string | undefined {
  if (!isObject(entry)) return `entries[${index}] is not an object`;
  for (const field of ['id', 'timestamp', 'event', 'result', 'origin'])
    if (typeof entry[field] !== 'string') return `entries[${index}].${field} is not a string`;
  if (!isObject(entry.actor) || typeof entry.actor.type !== 'string')
    return `entries[${index}].actor has no type`;
  if (entry.seq === null) return undefined;
  if (!isSeq(entry.seq)) return `entries[${index}].seq is not an integer ≥ 1`;
  for (const field of ['hash', 'prevHash'])
    if (typeof entry[field] !== 'string' || !HEX_HASH.test(entry[field] as string))
      return `entries[${index}].${field} is not a lowercase hex SHA-256`;
  if (!isObject(entry.digests)) return `entries[${index}].digests is not an object`;
  if (entry.salts !== undefined && !isObject(entry.salts))
    return `entries[${index}].salts is not an object`;
  return undefined;
}

function checkpointsProblem(checkpoints: unknown): string | undefined {
  if (!Array.isArray(checkpoints)) return 'checkpoints is not an array';
  const seen = new Set<number>();
  for (const [i, checkpoint] of checkpoints.entries()) {
    if (
      !isObject(checkpoint) ||
      !isSeq(checkpoint.seq) ||
      typeof checkpoint.hash !== 'string' ||
      typeof checkpoint.signature !== 'string'
    )
      return `checkpoints[${i}] is not {seq, hash, signature}`;
    if (seen.has(checkpoint.seq)) return `checkpoint ${checkpoint.seq} is given twice`;
    seen.add(checkpoint.seq);
  }
  return undefined;
}

/**
 * Checks a run of consecutive sealed entries (a JSON export, in any order) offline against
 * signed checkpoints and the public key: gapless seq, each field digest, each hash and
 * prevHash, each checkpoint's signature and its hash at its seq; the first failure in seq
 * order is reported. Input that is not made of full entries is invalid, never a thrown
 * error. `valid` says nothing contradicts the signatures; what no signature vouches for is
 * counted apart: `unsealedEntries` (not checked) and `uncoveredEntries` (after the last
 * checkpoint). Entries of which no verified checkpoint covers any are not valid. Checkpoint
 * signatures are checked against `expectedKey` (pinned: PEM or fingerprint) and the keys
 * the listed rotations chain to it; `pinnedKey` is its fingerprint, or null when none was
 * given (then the keys given are taken on trust). Asynchronous because Ed25519 goes through
 * Web Crypto.
 */
export async function verifyChain(input: VerifyInput): Promise<VerifyResult> {
  const malformed = (reason: string): VerifyResult => ({
    valid: false,
    checkedEntries: 0,
    lastCheckpointSeq: null,
    reason,
  });
  const { entries: exported, ...options } = input;
  if (!Array.isArray(exported)) return malformed('entries is not an array');
  // A JSON export's entries carry the proofs of the redactions that removed their fields.
  const entries: ChainEntry[] = [];
  const carried: { where: string; proofs: readonly RedactionProof[] }[] = [];
  for (const [i, item] of exported.entries()) {
    if (!isObject(item)) return malformed(`entries[${i}] is not an object`);
    const { redactedBy, redactionProofs, ...entry } = item as unknown as ExportedEntry;
    if (
      redactedBy !== undefined &&
      !(Array.isArray(redactedBy) && redactedBy.every((id) => typeof id === 'string'))
    )
      return malformed(`entries[${i}].redactedBy is not a list of ids`);
    if (redactionProofs !== undefined) {
      if (!Array.isArray(redactionProofs))
        return malformed(`entries[${i}].redactionProofs is not an array`);
      carried.push({ where: `entries[${i}].redactionProofs`, proofs: redactionProofs });
    }
    const problem = entryShapeProblem(entry, i);
    if (problem) return malformed(problem);
    entries.push(entry);
  }
  const checkpointProblem = checkpointsProblem(options.checkpoints);
  if (checkpointProblem) return malformed(checkpointProblem);
  const sealed = entries
    .filter((entry) => entry.seq !== null)
    .sort((a, b) => (a.seq as number) - (b.seq as number));
  let verifier: ChainVerifier;
  try {
    verifier = await ChainVerifier.create(options);
  } catch (error) {
    return malformed((error as Error).message);
  }
  const bare = missingMetadata(sealed);
  await verifier.add(
    bare ? sealed.filter((entry) => (entry.seq as number) < (bare.seq as number)) : sealed,
  );
  for (const { where, proofs } of carried) await verifier.addRedactions(proofs, where);
  let result = await verifier.finish();
  // Only the entries before the bare one were walked: a failure among them comes first, but
  // "not covered" would only be for want of the rest of the walk.
  if (bare && (result.valid || result.firstInvalidSeq === undefined))
    result = {
      ...result,
      valid: false,
      firstInvalidSeq: bare.seq as number,
      reason: `seq ${bare.seq} shows no metadata, other entries do`,
    };
  const covered = result.lastCheckpointSeq ?? 0;
  return {
    ...result,
    pinnedKey: verifier.pinnedKey,
    unsealedEntries: entries.length - sealed.length,
    uncoveredEntries: result.valid
      ? sealed.filter((entry) => (entry.seq as number) > covered).length
      : 0,
    truncatedEntries: result.valid
      ? truncatedAfter(sealed.at(-1)?.seq ?? undefined, options.checkpoints)
      : 0,
    ...(result.valid && metadataOmitted(sealed) ? { metadataOmitted: true as const } : {}),
  };
}
