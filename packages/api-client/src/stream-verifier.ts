import {
  type ChainEntry,
  type Checkpoint,
  entryHash,
  entryProblem,
  entryShapeProblem,
  GENESIS_HASH,
  KeySchedule,
  type SigningKeyRecord,
  verifyCheckpointSignature,
} from '@secadmin/log-chain';

/** What a log stream delivers to a webhook, parsed from its JSON body. */
export interface StreamEntriesMessage {
  type: 'audit_log.entries';
  stream: string;
  range: { fromSeq: number; toSeq: number };
  entries: ChainEntry[];
  checkpoint: Checkpoint | null;
}

export interface StreamTestMessage {
  type: 'secadmin.test';
  stream: string;
}

export interface StreamVerifierOptions {
  /**
   * The SPKI PEM of the key that signs checkpoints (`GET /v1/logs/public-key`); or
   * `publicKeys`, every key with its `fromSeq` and rotation record. With neither, checkpoint
   * signatures cannot be checked and each result says so (`checkpoint: 'unchecked'`).
   */
  publicKeyPem?: string;
  publicKeys?: readonly SigningKeyRecord[];
  /**
   * The key you expect, pinned outside the material: a SPKI PEM or a `SHA256:<hex>`
   * fingerprint; the keys given count only as far as their rotations chain to it.
   */
  expectedKey?: string;
  /** The stream's id; default: the stream of the first message. */
  stream?: string;
  /** The `fromSeq` the first message must have (e.g. 1 for a stream that starts at `earliest`). */
  fromSeq?: number;
  /**
   * The stream has a `filter`: entries of a range may be absent, so only entries with
   * consecutive seqs are checked to link up. Each entry's own hash, the ranges and the
   * checkpoints (their signatures, and their hash where the entry at their seq arrived) are
   * checked either way, but no checkpoint covers entries it cannot be linked to:
   * `coveredThroughSeq` stays null.
   */
  filtered?: boolean;
  /** A state saved by `state()`: go on from there (its stream wins over `stream`). */
  resume?: StreamVerifierState;
}

/**
 * Where a verifier stands, as JSON: save it after each verified message and pass it back as
 * `resume` so that a restarted receiver goes on checking the chain where it stopped.
 */
export interface StreamVerifierState {
  stream: string | null;
  deliveredThroughSeq: number | null;
  lastEntry: { seq: number; hash: string } | null;
  coveredThroughSeq: number | null;
  /** `[seq, hash]` of the entries not yet covered by a checkpoint. */
  pending: [number, string][];
  firstBreak: { seq?: number; reason: string } | null;
}

/** The verdict on one message. A message that is not `verified`, `duplicate` or `test` breaks the stream. */
export type StreamMessageResult =
  | {
      status: 'verified';
      fromSeq: number;
      toSeq: number;
      /** Entries of this message that were new (an overlap with a range already held is skipped). */
      entries: number;
      /**
       * The message's checkpoint: `verified` (signed by a trusted key and, where its seq is an
       * entry held, equal to that entry's hash), `none`, or `unchecked` (no public key given).
       */
      checkpoint: 'verified' | 'none' | 'unchecked';
      /**
       * The highest seq a verified checkpoint ties to the entries received (every entry up to
       * it links to the checkpoint's hash), or null; always null for a filtered stream.
       */
      coveredThroughSeq: number | null;
    }
  | { status: 'duplicate'; fromSeq: number; toSeq: number }
  | { status: 'test' }
  | { status: 'invalid'; seq?: number; reason: string };

/** At most this many entry hashes wait for a checkpoint to tie them (the oldest go first). */
const MAX_PENDING_HASHES = 100_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSeq = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;
const HEX_HASH = /^[0-9a-f]{64}$/;

/**
 * Follows one log stream message after message (in the order they arrive, which the server
 * keeps) and checks that the receiver holds every entry: each range starts right after the
 * last one (`fromSeq` = previous `toSeq` + 1), each entry is sealed, lies in its range and
 * matches its own hash and digests, each entry's `prevHash` is the hash of the one before
 * (across messages too; for a filtered stream, where the seq before is held), and each
 * checkpoint is signed by the pinned key and matches the hash of the entry at its seq. A
 * message that fails changes nothing, so the sender's retry, or a replay, can follow; a
 * range already held is a duplicate (the at-least-once redelivery), not a break.
 */
export class StreamVerifier {
  private stream: string | undefined;
  private deliveredThrough: number | undefined;
  /** The seq and hash of the last entry received. */
  private lastEntry: { seq: number; hash: string } | undefined;
  private coveredThrough: number | null = null;
  /** Hashes of entries received after the last checkpoint that matched, by seq. */
  private readonly pending = new Map<number, string>();
  private firstBreak: { seq?: number; reason: string } | undefined;

  private constructor(
    private readonly keys: KeySchedule | undefined,
    private readonly options: StreamVerifierOptions,
  ) {
    this.stream = options.stream;
    const resume = options.resume;
    if (resume) {
      this.stream = resume.stream ?? options.stream;
      this.deliveredThrough = resume.deliveredThroughSeq ?? undefined;
      this.lastEntry = resume.lastEntry ?? undefined;
      this.coveredThrough = resume.coveredThroughSeq;
      for (const [seq, hash] of resume.pending) this.pending.set(seq, hash);
      this.firstBreak = resume.firstBreak ?? undefined;
    }
  }

  /** Where the verifier stands, to save and pass back as `resume` (see `StreamVerifierState`). */
  state(): StreamVerifierState {
    return {
      stream: this.stream ?? null,
      deliveredThroughSeq: this.deliveredThrough ?? null,
      lastEntry: this.lastEntry ?? null,
      coveredThroughSeq: this.coveredThrough,
      pending: [...this.pending],
      firstBreak: this.firstBreak ?? null,
    };
  }

  /** Throws when the keys given do not chain to the pinned one. */
  static async create(options: StreamVerifierOptions = {}): Promise<StreamVerifier> {
    const records =
      options.publicKeys ??
      (options.publicKeyPem ? [{ publicKey: options.publicKeyPem, fromSeq: 1 }] : undefined);
    const keys = records ? await KeySchedule.trust(records, options.expectedKey) : undefined;
    return new StreamVerifier(keys, options);
  }

  /** The fingerprint of the pinned key, or null when none was pinned. */
  get pinnedKey(): string | null {
    return this.keys?.pinned ?? null;
  }

  /** The last seq whose range was verified, or undefined before the first message. */
  get deliveredThroughSeq(): number | undefined {
    return this.deliveredThrough;
  }

  /** The first break found, if any (kept when later messages verify again). */
  get break(): { seq?: number; reason: string } | undefined {
    return this.firstBreak;
  }

  /**
   * Checks the next message: its parsed JSON body, and its `webhook-id` (whose signature the
   * caller has checked), which must name the message's range.
   */
  async add(message: unknown, webhookId?: string): Promise<StreamMessageResult> {
    const result = await this.check(message, webhookId);
    if (result.status === 'invalid' && !this.firstBreak)
      this.firstBreak = {
        ...(result.seq === undefined ? {} : { seq: result.seq }),
        reason: result.reason,
      };
    return result;
  }

  private async check(message: unknown, webhookId?: string): Promise<StreamMessageResult> {
    if (!isObject(message)) return invalid('the message is not a JSON object');
    if (typeof message.stream !== 'string') return invalid('stream is not a string');
    if (this.stream !== undefined && message.stream !== this.stream)
      return invalid(`the message is for stream ${message.stream}, not ${this.stream}`);
    if (message.type === 'secadmin.test') {
      this.stream = message.stream;
      return { status: 'test' };
    }
    if (message.type !== 'audit_log.entries')
      return invalid(`type ${JSON.stringify(message.type)} is not audit_log.entries`);
    const shape = messageShapeProblem(message);
    if (shape) return invalid(shape);
    const { range, entries, checkpoint, stream } = message as unknown as StreamEntriesMessage;
    const { fromSeq, toSeq } = range;
    if (webhookId !== undefined && webhookId !== `msg_${stream}_${fromSeq}_${toSeq}`)
      return invalid(`webhook-id ${webhookId} does not name range ${fromSeq}–${toSeq}`, fromSeq);

    const expected = this.deliveredThrough === undefined ? undefined : this.deliveredThrough + 1;
    if (expected !== undefined) {
      const changed = this.changedEntry(entries, expected);
      if (changed) return changed;
      if (toSeq < expected) return { status: 'duplicate', fromSeq, toSeq };
    }
    if (expected !== undefined && fromSeq > expected)
      return invalid(
        `seq ${expected}–${fromSeq - 1} never arrived: the range starts at ${fromSeq}`,
        expected,
      );
    if (
      expected === undefined &&
      this.options.fromSeq !== undefined &&
      fromSeq !== this.options.fromSeq
    )
      return invalid(
        `the first range starts at ${fromSeq}, not ${this.options.fromSeq}`,
        this.options.fromSeq,
      );

    // Entries at or below the seq already held are a redelivered overlap: skipped.
    const fresh = entries.filter(
      (entry) => expected === undefined || (entry.seq as number) >= expected,
    );
    const unfiltered = !this.options.filtered;
    const start = expected ?? fromSeq;
    if (unfiltered && fresh.length !== toSeq - start + 1) {
      const seqs = new Set(fresh.map((entry) => entry.seq));
      let missing = start;
      while (seqs.has(missing)) missing++;
      return invalid(`seq ${missing} of range ${fromSeq}–${toSeq} is missing`, missing);
    }

    const hashes = new Map<number, string>();
    let lastSeq = expected === undefined ? undefined : expected - 1;
    let lastEntry = this.lastEntry;
    if (expected === undefined && unfiltered && fresh[0]) {
      // The first message: what comes before it is known only through a checkpoint there.
      hashes.set(fromSeq - 1, fresh[0].prevHash as string);
    }
    for (const entry of fresh) {
      const seq = entry.seq as number;
      if (lastSeq !== undefined && seq <= lastSeq)
        return invalid(`seq ${seq} comes after seq ${lastSeq}`, seq);
      const problem = entryProblem(entry);
      if (problem) return invalid(`seq ${seq}: ${problem}`, seq);
      if (entryHash(entry.prevHash as string, entry) !== entry.hash)
        return invalid(`hash of seq ${seq} does not match its content`, seq);
      const before =
        seq === 1 ? GENESIS_HASH : lastEntry?.seq === seq - 1 ? lastEntry.hash : undefined;
      if (before !== undefined && entry.prevHash !== before)
        return invalid(`prevHash of seq ${seq} is not the hash of seq ${seq - 1}`, seq);
      hashes.set(seq, entry.hash as string);
      lastSeq = seq;
      lastEntry = { seq, hash: entry.hash as string };
    }

    let checkpointStatus: 'verified' | 'none' | 'unchecked' = 'none';
    let covered = this.coveredThrough;
    if (checkpoint) {
      if (checkpoint.seq > toSeq)
        return invalid(`checkpoint ${checkpoint.seq} lies past the range's end ${toSeq}`, toSeq);
      if (!this.keys) checkpointStatus = 'unchecked';
      else {
        if (!(await verifyCheckpointSignature(this.keys.forSeq(checkpoint.seq), checkpoint)))
          return invalid(`checkpoint ${checkpoint.seq} has an invalid signature`, checkpoint.seq);
        checkpointStatus = 'verified';
      }
      const held = hashes.get(checkpoint.seq) ?? this.pending.get(checkpoint.seq);
      if (held !== undefined && held !== checkpoint.hash)
        return invalid(
          `checkpoint ${checkpoint.seq} does not match the hash of seq ${checkpoint.seq}`,
          checkpoint.seq,
        );
      // In a filtered stream the entries before a matching one need not link to it.
      if (held !== undefined && checkpointStatus === 'verified' && unfiltered)
        covered = Math.max(covered ?? 0, checkpoint.seq);
    }

    // The message holds: take it.
    this.stream = stream;
    this.deliveredThrough = toSeq;
    this.lastEntry = lastEntry;
    for (const [seq, hash] of hashes) this.pending.set(seq, hash);
    if (covered !== null)
      for (const seq of this.pending.keys()) if (seq <= covered) this.pending.delete(seq);
    for (const seq of this.pending.keys()) {
      if (this.pending.size <= MAX_PENDING_HASHES) break;
      this.pending.delete(seq);
    }
    this.coveredThrough = covered;
    return {
      status: 'verified',
      fromSeq,
      toSeq,
      entries: fresh.length,
      checkpoint: checkpointStatus,
      coveredThroughSeq: covered,
    };
  }

  /**
   * A resent entry (seq below `expected`) whose hash is not the one received for its seq
   * before, or whose content does not match its hash: history rewritten after delivery.
   * Only hashes still held (since the last checkpoint that matched) can be compared.
   */
  private changedEntry(
    entries: readonly ChainEntry[],
    expected: number,
  ): StreamMessageResult | undefined {
    for (const entry of entries) {
      const seq = entry.seq as number;
      if (seq >= expected) continue;
      const held =
        this.pending.get(seq) ?? (this.lastEntry?.seq === seq ? this.lastEntry.hash : undefined);
      if (held === undefined) continue;
      if (entry.hash !== held || entryHash(entry.prevHash as string, entry) !== held)
        return invalid(`seq ${seq} is not the entry received for it before`, seq);
    }
    return undefined;
  }
}

function invalid(reason: string, seq?: number): StreamMessageResult {
  return { status: 'invalid', ...(seq === undefined ? {} : { seq }), reason };
}

/** Why an `audit_log.entries` message is not one (before any entry is checked), or undefined. */
function messageShapeProblem(message: Record<string, unknown>): string | undefined {
  const range = message.range;
  if (!isObject(range) || !isSeq(range.fromSeq) || !isSeq(range.toSeq))
    return 'range is not {fromSeq, toSeq} of seqs';
  if (range.fromSeq > range.toSeq) return `range ${range.fromSeq}–${range.toSeq} is reversed`;
  if (!Array.isArray(message.entries)) return 'entries is not an array';
  if (message.entries.length === 0) return 'entries is empty';
  for (const [i, entry] of message.entries.entries()) {
    const problem = entryShapeProblem(entry, i);
    if (problem) return problem;
    const seq = (entry as ChainEntry).seq;
    if (seq === null) return `entries[${i}] is not sealed`;
    if (seq < range.fromSeq || seq > range.toSeq)
      return `entries[${i}] has seq ${seq}, outside range ${range.fromSeq}–${range.toSeq}`;
  }
  const checkpoint = message.checkpoint;
  if (checkpoint === null) return undefined;
  if (
    !isObject(checkpoint) ||
    !isSeq(checkpoint.seq) ||
    typeof checkpoint.hash !== 'string' ||
    !HEX_HASH.test(checkpoint.hash) ||
    typeof checkpoint.signature !== 'string'
  )
    return 'checkpoint is neither null nor {seq, hash, signature}';
  return undefined;
}
