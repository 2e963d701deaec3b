import { CANONICAL_VERSION, entryHash, GENESIS_HASH, REDACTION_EVENT } from '@secadmin/log-chain';
import { Pacer } from '../../../lib/pacer.js';
import { type Job, type JobLogger, pollLoop } from '../../../lib/poll-loop.js';
import type { Store } from '../../../storage/store.js';
import { type CanonicalColumns, chainEntry } from './canonical-columns.js';
import { commit } from './commitments.js';
import type { ChainHead, ChainRow, CheckpointRow } from './model.js';
import type { ChainRepository, ChainState, QueuedEntry } from './repository.js';
import type { SigningKey } from './signing-key.js';
import type { SigningKeysRepository } from './signing-keys-repository.js';

export interface SealerOptions {
  store: Pick<Store, 'transaction'>;
  chain: Pick<ChainRepository, 'hasQueued' | 'pending' | 'unsealed' | 'trySealerLock' | 'seal'>;
  signingKeys: Pick<SigningKeysRepository, 'active'>;
  key: SigningKey;
  logger: JobLogger;
  /** Seconds from an entry's write to its seal, per sealed entry (the seal-lag metric). */
  observeLag?: (seconds: number) => void;
  /** Entries per transaction at most (SEAL_BATCH_SIZE); a batch also stops before SEAL_READ_BYTES. */
  batchSize?: number;
  /** How often an idle sealer looks for work (ingest in this process wakes it at once). */
  pollMs?: number;
  /** A checkpoint every this many entries… */
  checkpointEvery?: number;
  /** …or once the oldest entry no checkpoint covers was sealed this long ago. */
  checkpointAfterMs?: number;
}

/**
 * About how many bytes of digests a batch reads. The rows are parsed as they arrive; a bound
 * much lower stopped batches of ordinary entries before their count, and the sealer fell behind
 * ingest.
 */
const SEAL_READ_BYTES = 4 * 1024 * 1024;

/**
 * Entries per batch at most. Each entry of a batch waits for all of it, so under full ingest
 * the seal lag follows this cap; below 1,000 the cost of each turn slows ingest
 * (bench/results/findings.md, "The seal batch's size").
 */
const SEAL_BATCH_SIZE = 1_000;

/** How often an idle sealer checks whether a time-based checkpoint is due. */
const IDLE_CHECK_MS = 1_000;

type LateCommitments = { id: string; digests: object; salts: object }[];

/** Thrown inside the sealer's transaction to roll it back: the batch is done again. */
const STALE = new Error('the chain moved while the batch was hashed');

/**
 * Seals written entries into the hash chain, in every instance. Each batch hashes the
 * oldest queued entries after the chain's head, then commits in one transaction that
 * takes a transaction-level advisory lock (an instance that does not get it leaves the
 * work to the one that did), checks that the head has not moved, appends the chain rows,
 * deletes the queue rows and adds the checkpoints that are due. A crash anywhere rolls the
 * whole batch back, so every acknowledged entry stays queued until it is sealed exactly once.
 */
export class Sealer implements Required<Job> {
  private lastFullPass = 0;
  private readonly loop: Required<Job>;
  /** The last batch found a full batch or more queued: writers wait (see `caughtUp`). */
  private behind = false;
  /** Shutting down: no writer waits any more. */
  private released = false;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly options: SealerOptions) {
    this.loop = pollLoop({
      name: 'sealer',
      everyMs: options.pollMs ?? 100,
      logger: options.logger,
      turn: async () => {
        // Writers wait only for a sealer that makes progress here: not for another
        // instance's, nor for one that fails, nor for an empty queue.
        let behind = false;
        try {
          const due = Date.now() - this.lastFullPass >= IDLE_CHECK_MS;
          if (!due && !(await options.chain.hasQueued())) return false;
          const sealed = await this.sealBatch(false);
          this.lastFullPass = Date.now();
          if (sealed === 'busy') return false;
          behind = sealed.fullBatchLeft;
          return sealed.more;
        } finally {
          this.setBehind(behind);
        }
      },
    });
  }

  private get batchSize(): number {
    return this.options.batchSize ?? SEAL_BATCH_SIZE;
  }

  start(): void {
    this.loop.start();
  }

  /** Entries were written: seal them now rather than at the next poll. */
  kick(): void {
    this.loop.kick();
  }

  stop(): Promise<void> {
    this.releaseWriters();
    return this.loop.stop();
  }

  /** From now on no writer waits (shutdown: a waiting ingest writes within the drain). */
  releaseWriters(): void {
    this.released = true;
    this.setBehind(false);
  }

  /**
   * Resolves once this instance's sealer finds less than a full batch queued, or after
   * `maxWaitMs` whatever it has done: ingest waits here before it writes, so that under a
   * sustained load the chain stays within about a batch of the newest entry instead of
   * falling further behind for as long as the load lasts. True when it waited.
   */
  caughtUp(maxWaitMs: number): Promise<boolean> {
    if (!this.behind) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve(true);
      };
      const timer = setTimeout(done, maxWaitMs);
      this.waiting.add(done);
    });
  }

  private setBehind(behind: boolean): void {
    this.behind = behind && !this.released;
    if (!behind) for (const done of [...this.waiting]) done();
  }

  /** Seals everything queued now and signs a checkpoint at the head (tests, tooling). */
  async flush(): Promise<void> {
    for (;;) {
      const sealed = await this.sealBatch(true);
      if (sealed === 'busy') await new Promise((r) => setTimeout(r, 20));
      else if (!sealed.more) return;
    }
  }

  /**
   * Seals a batch now, with the checkpoints that fall due (one at each deletion it seals), and
   * none more: a checkpoint signed on request over a head this instance did not seal would
   * sign whatever someone with write access to the database appended there.
   */
  async sealNow(): Promise<void> {
    while ((await this.sealBatch(false)) === 'busy') await new Promise((r) => setTimeout(r, 20));
  }

  /**
   * One batch. The queued entries are read, their canonical forms computed and hashed, and
   * the checkpoints that fall due signed, before the transaction (entries older than the
   * chain have no digests yet and are committed now). The
   * transaction takes the lock and commits it all in one statement, only if the chain's
   * head is still the one the hashes follow and every queued entry is still queued;
   * otherwise it rolls back and the batch is done again. 'busy': another instance holds
   * the lock; `more`: entries were left queued; `fullBatchLeft`: a full batch's count or
   * more was queued (a batch may stop sooner, at its byte bound).
   */
  private async sealBatch(
    forceCheckpoint: boolean,
  ): Promise<{ more: boolean; fullBatchLeft: boolean } | 'busy'> {
    const { store, chain, signingKeys } = this.options;
    for (;;) {
      const { state, queued, more, looked } = await chain.pending(this.batchSize, SEAL_READ_BYTES);
      const { entries, late } = await this.entries(queued);
      const rows = await this.hash(state.head, queued, entries);
      const sealedAt = new Date();
      const redactions = new Set(
        [...entries.values()]
          .filter((entry) => entry.event === REDACTION_EVENT && entry.origin === 'service')
          .map((entry) => entry.id),
      );
      const checkpoints = this.checkpointsDue(state, rows, sealedAt, forceCheckpoint, redactions);
      const fullBatchLeft = looked >= this.batchSize;
      if (queued.length === 0 && checkpoints.length === 0) return { more: false, fullBatchLeft };
      let sealed: 'sealed' | 'busy';
      try {
        sealed = await store.transaction(async () => {
          if (!(await chain.trySealerLock())) return 'busy' as const;
          if (checkpoints.length > 0) await this.assertActiveKey(signingKeys);
          const fresh = await chain.seal({
            expectedHeadSeq: state.head?.seq ?? null,
            rows,
            dequeued: queued.map((q) => q.queueNo),
            late: late.commitments,
            checkpoints,
            sealedAt,
          });
          if (!fresh) throw STALE;
          return 'sealed' as const;
        });
      } catch (error) {
        if (error === STALE) continue;
        throw error;
      }
      if (sealed === 'busy') return sealed;
      const committed = Date.now();
      for (const q of queued)
        if (!late.ids.has(q.entryId))
          this.options.observeLag?.((committed - q.writtenAt.getTime()) / 1000);
      return { more, fullBatchLeft };
    }
  }

  /**
   * A rotation makes another key active; an instance still holding the old one must not sign
   * checkpoints from the new key's seq on (no verifier would accept them): a batch that would
   * sign one rolls back, until the instance is restarted with the new key.
   */
  private async assertActiveKey(keys: Pick<SigningKeysRepository, 'active'>): Promise<void> {
    const active = await keys.active();
    if (active !== this.options.key.fingerprint)
      throw new Error(
        `this instance's signing key ${this.options.key.fingerprint} is not the active key (${active ?? 'none is registered'}): it signs no checkpoint; restart it with the active key`,
      );
  }

  /**
   * The columns of each queued entry that its canonical form holds, by entry id, as they
   * are now. Entries queued by the migration have no digests yet: they are read whole and
   * committed now, and `late` holds them. A queued entry whose row is gone is not in
   * `entries` and is dequeued without a chain row.
   */
  private async entries(queued: QueuedEntry[]): Promise<{
    entries: Map<string, CanonicalColumns>;
    late: { ids: Set<string>; commitments: LateCommitments };
  }> {
    const entries = new Map<string, CanonicalColumns>();
    const late = { ids: new Set<string>(), commitments: [] as LateCommitments };
    for (const { entry } of queued)
      if (entry?.digests === null) late.ids.add(entry.id);
      else if (entry) entries.set(entry.id, entry);
    if (late.ids.size === 0) return { entries, late };
    for (const row of await this.options.chain.unsealed([...late.ids])) {
      const committed = commit(row);
      late.commitments.push({ id: row.id, ...committed });
      entries.set(row.id, { ...row, digests: committed.digests });
    }
    return { entries, late };
  }

  /** The chain rows of the batch, hashed in slices: an entry of a thousand fields is costly. */
  private async hash(
    head: ChainHead | null,
    queued: QueuedEntry[],
    entries: Map<string, CanonicalColumns>,
  ): Promise<ChainRow[]> {
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    const rows: ChainRow[] = [];
    const pacer = new Pacer();
    for (const { entryId } of queued) {
      await pacer.pace();
      const entry = entries.get(entryId);
      if (entry === undefined) continue;
      seq++;
      const hash = entryHash(prevHash, chainEntry(entry, seq, CANONICAL_VERSION));
      rows.push({ seq, entryId, hash, prevHash, canonicalVersion: CANONICAL_VERSION });
      prevHash = hash;
    }
    return rows;
  }

  /**
   * A checkpoint at every `checkpointEvery` entries since the last one, at the head of a
   * chain that has none yet, and at the head when the oldest entry no checkpoint covers was
   * sealed `checkpointAfterMs` ago. And one at each service `user.deleted` entry (ids in
   * `redactions`): its redaction is proven by its own hash, with no entry between it and a
   * signature that retention could remove before the proof is made.
   */
  private checkpointsDue(
    state: ChainState,
    rows: ChainRow[],
    now: Date,
    force: boolean,
    redactions: ReadonlySet<string>,
  ): CheckpointRow[] {
    const last = rows[rows.length - 1];
    const top = last ? { seq: last.seq, hash: last.hash } : state.head;
    if (!top) return [];
    const every = this.options.checkpointEvery ?? 1_000;
    let covered = state.covered;
    const checkpoints: CheckpointRow[] = [];
    const add = (seq: number, hash: string) => {
      checkpoints.push({
        seq,
        hash,
        signature: this.options.key.signCheckpoint(seq, hash),
        createdAt: now,
      });
      covered = seq;
    };
    for (const row of rows)
      if (row.seq - covered >= every || redactions.has(row.entryId)) add(row.seq, row.hash);
    if (top.seq > covered) {
      const uncoveredSince = covered === state.covered ? (state.uncoveredSince ?? now) : now;
      const after = this.options.checkpointAfterMs ?? 60_000;
      // The chain's first entries get a checkpoint at once: until one exists, nothing sealed
      // can be verified as covered.
      const first = covered === 0;
      if (force || first || now.getTime() - uncoveredSince.getTime() >= after)
        add(top.seq, top.hash);
    }
    return checkpoints;
  }
}
