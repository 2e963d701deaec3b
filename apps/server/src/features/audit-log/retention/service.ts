import type { Store } from '../../../storage/repositories.js';
import type { AuditWriter } from '../audit-writer.js';

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
   * Removes, batch by batch, every entry whose `timestamp` is older than `days` before
   * `now`, then records a `logs.retention.applied` entry when anything was removed.
   */
  async apply(now = new Date()): Promise<RetentionRun> {
    const cutoff = new Date(now.getTime() - this.days * DAY_MS);
    let removedEntries = 0;
    for (;;) {
      // Under the sealer's lock: a batch sealing these entries commits before or after.
      const removed = await this.store.transaction(async (repos) => {
        await repos.chain.lockSealer();
        return repos.logs.removeOlderThan(cutoff, BATCH);
      });
      removedEntries += removed;
      if (removed < BATCH || this.stopping) break;
    }
    if (removedEntries > 0) {
      await this.audit.recordSystem({
        event: 'logs.retention.applied',
        target: { type: 'audit_log' },
        metadata: { retentionDays: this.days, cutoff: cutoff.toISOString(), removedEntries },
      });
    }
    return { cutoff, removedEntries };
  }

  /** Lets a run in progress end after its current batch. */
  stop(): void {
    this.stopping = true;
  }
}
