import { entryHash, GENESIS_HASH } from '@secadmin/log-chain';
import type { Logger } from 'pino';
import type { Repositories, Store } from '../../../storage/repositories.js';
import { logDetail } from '../representation.js';
import { commit } from './commitments.js';
import type { ChainRow, CheckpointRow } from './repository.js';
import type { SigningKey } from './signing-key.js';

export interface SealerOptions {
  store: Store;
  key: SigningKey;
  logger: Logger;
  /** Seconds from an entry's write to its seal, per sealed entry (the seal-lag metric). */
  observeLag?: (seconds: number) => void;
  /** Entries per transaction. */
  batchSize?: number;
  /** How often an idle sealer looks for work (ingest in this process wakes it at once). */
  pollMs?: number;
  /** A checkpoint every this many entries… */
  checkpointEvery?: number;
  /** …or once the oldest entry no checkpoint covers was sealed this long ago. */
  checkpointAfterMs?: number;
}

/** How often an idle sealer checks whether a time-based checkpoint is due. */
const IDLE_CHECK_MS = 1_000;

/**
 * Seals written entries into the hash chain, in every instance: each batch is one
 * transaction that first takes a transaction-level advisory lock (an instance that does
 * not get it leaves the work to the one that did), reads the chain's head, claims the
 * oldest queued entries, hashes them, appends the chain rows, deletes the queue rows and
 * adds the checkpoints that are due. A crash anywhere rolls the whole batch back, so
 * every acknowledged entry stays queued until it is sealed exactly once.
 */
export class Sealer {
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private lastFullPass = 0;
  private failing = false;

  constructor(private readonly options: SealerOptions) {}

  private get batchSize(): number {
    return this.options.batchSize ?? 2_000;
  }

  start(): void {
    this.loop = this.run();
  }

  /** Entries were written: seal them now rather than at the next poll. */
  kick(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /** Seals everything queued now and signs a checkpoint at the head (tests, tooling). */
  async flush(): Promise<void> {
    for (;;) {
      const sealed = await this.sealBatch(true);
      if (sealed === 'busy') await new Promise((r) => setTimeout(r, 20));
      else if (sealed < this.batchSize) return;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let sealed: number | 'busy' = 0;
      try {
        const due = Date.now() - this.lastFullPass >= IDLE_CHECK_MS;
        if (due || (await this.options.store.chain.hasQueued())) {
          sealed = await this.sealBatch(false);
          this.lastFullPass = Date.now();
        }
        if (this.failing) this.options.logger.info('sealer recovered');
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.options.logger.error({ err: error }, 'sealer failed; retrying');
        this.failing = true;
      }
      if (sealed === this.batchSize) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? 100);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** One batch in one transaction; 'busy' when another instance holds the lock. */
  private async sealBatch(forceCheckpoint: boolean): Promise<number | 'busy'> {
    const lags: number[] = [];
    const sealed = await this.options.store.transaction(async (repos) => {
      if (!(await repos.chain.trySealerLock())) return 'busy' as const;
      const head = await repos.chain.head();
      const rows = await this.hashQueued(repos, head, lags);
      await this.checkpoint(repos, head, rows, new Date(), forceCheckpoint);
      return rows.length;
    });
    for (const lag of lags) this.options.observeLag?.(lag);
    return sealed;
  }

  private async hashQueued(
    repos: Repositories,
    head: { seq: number; hash: string } | null,
    lags: number[],
  ): Promise<ChainRow[]> {
    const queued = await repos.chain.queued(this.batchSize);
    if (queued.length === 0) return [];
    const entries = new Map(
      (await repos.chain.entries(queued.map((q) => q.entryId))).map((row) => [row.id, row]),
    );
    let seq = head?.seq ?? 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    const rows: ChainRow[] = [];
    const late: { id: string; digests: object; salts: object }[] = [];
    const written: Date[] = [];
    for (const { entryId } of queued) {
      const row = entries.get(entryId);
      if (!row) continue;
      if (row.digests === null) {
        // Written before the chain existed: committed now, as it is now.
        const commitments = commit(row);
        Object.assign(row, commitments);
        late.push({ id: row.id, ...commitments });
      } else written.push(row.receivedAt ?? row.timestamp);
      seq++;
      Object.assign(row, { seq, prevHash, hash: null });
      const hash = entryHash(prevHash, logDetail(row));
      rows.push({ seq, entryId, hash, prevHash });
      prevHash = hash;
    }
    // After hashing: sealed_at (and the lag) is as close to the commit as it can be.
    const now = new Date();
    for (const at of written) lags.push((now.getTime() - at.getTime()) / 1000);
    await repos.chain.append(
      rows,
      queued.map((q) => q.n),
      late,
      now,
    );
    return rows;
  }

  /**
   * A checkpoint at every `checkpointEvery` entries since the last one, and at the head
   * when the oldest entry no checkpoint covers was sealed `checkpointAfterMs` ago.
   */
  private async checkpoint(
    repos: Repositories,
    head: { seq: number; hash: string } | null,
    rows: ChainRow[],
    now: Date,
    force: boolean,
  ): Promise<void> {
    const last = rows[rows.length - 1];
    const top = last ? { seq: last.seq, hash: last.hash } : head;
    if (!top) return;
    const every = this.options.checkpointEvery ?? 1_000;
    let covered = (await repos.chain.lastCheckpoint())?.seq ?? 0;
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
    for (const row of rows) if (row.seq - covered >= every) add(row.seq, row.hash);
    if (top.seq > covered) {
      const firstSealed =
        rows.length > 0 && rows[0] && rows[0].seq <= covered + 1
          ? now
          : await repos.chain.sealedAt(covered + 1);
      const after = this.options.checkpointAfterMs ?? 60_000;
      if (force || (firstSealed && now.getTime() - firstSealed.getTime() >= after))
        add(top.seq, top.hash);
    }
    await repos.chain.addCheckpoints(checkpoints);
  }
}
