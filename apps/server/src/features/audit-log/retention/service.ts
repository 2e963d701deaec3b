import type { Store } from '../../../storage/store.js';
import type { FeedRepository } from '../analytics/feed-repository.js';
import type { AuditWriter } from '../audit-writer.js';
import type { PartitionsRepository } from '../partitions/repository.js';
import { RETENTION_EVENT, type RetentionRepository } from './repository.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Entries removed per statement: small enough that no transaction holds locks for long. */
const BATCH = 5_000;

export interface RetentionRun {
  cutoff: Date;
  removedEntries: number;
}

/** `SECADMIN_LOG_RETENTION_DAYS`: removes the entries dated before the retention window. */
export class LogRetention {
  private stopping = false;

  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly partitions: Pick<PartitionsRepository, 'months' | 'dropSealed'>,
    private readonly retention: Pick<RetentionRepository, 'removeOlderThan'>,
    /** What the search store is told to remove, in the transaction that removes it. */
    private readonly searchIndex: Pick<FeedRepository, 'queue' | 'sealedHead'>,
    private readonly audit: Pick<AuditWriter, 'recordSystem'>,
    readonly days: number,
    /** The lowest seq a log stream has yet to deliver: it and later entries stay. */
    private readonly heldFrom: () => Promise<number | undefined> = async () => undefined,
  ) {}

  /**
   * Removes every sealed entry whose `timestamp` is older than `days` before `now`
   * (unsealed ones wait for the next run): first whole months whose end is at or before
   * the cutoff, by dropping their partitions; then, batch by batch, what is left (the
   * default partition, the month the cutoff falls in, a month with unsealed entries).
   * Each dropped month and each batch writes its `logs.retention.applied` entry in the
   * same transaction, so the chain rows it marks removed are never seen without the
   * record that accounts for them. Entries an active or failing log stream has not
   * delivered yet stay (docs/log-streams.md).
   */
  async apply(now = new Date()): Promise<RetentionRun> {
    const cutoff = new Date(now.getTime() - this.days * DAY_MS);
    let removedEntries = 0;
    const heldFrom = await this.heldFrom();
    // While a stream holds entries back, months are removed row by row, below what it holds.
    for (const month of heldFrom === undefined ? await this.partitions.months() : []) {
      if (month.to > cutoff || this.stopping) break;
      removedEntries += await this.store.transaction(async () => {
        const removed = await this.partitions.dropSealed(month);
        if (removed) {
          // Every entry of the month was sealed (the drop waits otherwise): up to the head.
          const throughSeq = await this.searchIndex.sealedHead();
          await this.searchIndex.queue({
            kind: 'remove',
            fromTime: month.from,
            toTime: month.to,
            throughSeq,
          });
          await this.record(cutoff, removed, { partition: month.name });
        }
        return removed ?? 0;
      });
    }
    while (!this.stopping) {
      const removed = await this.store.transaction(async () => {
        const ids = await this.retention.removeOlderThan(cutoff, BATCH, heldFrom);
        if (ids.length > 0) {
          await this.searchIndex.queue({ kind: 'resync', entryIds: ids });
          await this.record(cutoff, ids.length);
        }
        return ids.length;
      });
      removedEntries += removed;
      if (removed < BATCH) break;
    }
    return { cutoff, removedEntries };
  }

  private record(
    cutoff: Date,
    removedEntries: number,
    more: Record<string, string> = {},
  ): Promise<void> {
    return this.audit.recordSystem({
      event: RETENTION_EVENT,
      target: { type: 'audit_log' },
      metadata: { retentionDays: this.days, cutoff: cutoff.toISOString(), removedEntries, ...more },
    });
  }

  /** Lets a run in progress end after its current batch. */
  stop(): void {
    this.stopping = true;
  }
}
