import type { Store } from '../../../storage/repositories.js';
import type { AuditWriter } from '../audit-writer.js';
import { RETENTION_EVENT } from '../repository.js';

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
    private readonly store: Store,
    private readonly audit: AuditWriter,
    readonly days: number,
  ) {}

  /**
   * Removes, batch by batch, every sealed entry whose `timestamp` is older than `days`
   * before `now` (unsealed ones wait for the next run). Each batch that removes anything
   * writes its `logs.retention.applied` entry in the same transaction, so the chain rows it
   * marks removed are never seen without the record that accounts for them.
   */
  async apply(now = new Date()): Promise<RetentionRun> {
    const cutoff = new Date(now.getTime() - this.days * DAY_MS);
    let removedEntries = 0;
    for (;;) {
      const removed = await this.store.transaction(async (repos) => {
        const n = await repos.logs.removeOlderThan(cutoff, BATCH);
        if (n > 0) {
          await this.audit.recordSystem(repos, {
            event: RETENTION_EVENT,
            target: { type: 'audit_log' },
            metadata: { retentionDays: this.days, cutoff: cutoff.toISOString(), removedEntries: n },
          });
        }
        return n;
      });
      removedEntries += removed;
      if (removed < BATCH || this.stopping) break;
    }
    return { cutoff, removedEntries };
  }

  /** Lets a run in progress end after its current batch. */
  stop(): void {
    this.stopping = true;
  }
}
