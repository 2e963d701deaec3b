import type { Logger } from 'pino';
import { isLockTimeout } from '../../../storage/database-errors.js';
import type { Store } from '../../../storage/store.js';
import { type Month, monthOf, type PartitionsRepository } from './repository.js';

/** Months created ahead of the current one. */
const AHEAD = 2;
/**
 * How far back an ingested entry's month gets a partition of its own. Older backfills go to the
 * default partition: a bound, so that a batch spread over decades cannot create hundreds of tables.
 */
export const BACKFILL_MONTHS = 36;
/**
 * How long a backfill waits to create a partition. Creating one waits for every reader of the
 * log (an export can read for minutes) and holds up everyone queued behind it meanwhile; when
 * it cannot get through at once, the entries go to the default partition instead.
 */
const BACKFILL_LOCK_WAIT_MS = 100;

/** Creates the log's monthly partitions, safely from several instances. */
export class LogPartitions {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly partitions: Pick<
      PartitionsRepository,
      'months' | 'lock' | 'defaultHolds' | 'create' | 'waitForLocksAtMost'
    >,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {}

  /** Creates the partitions of the current month and the next two when missing. */
  async ensureAhead(now = new Date()): Promise<Month[]> {
    return this.createMissing(Array.from({ length: AHEAD + 1 }, (_, i) => monthStarting(now, i)));
  }

  /**
   * Before a backfill is written: creates the partitions of its past months (back to
   * BACKFILL_MONTHS), so that its entries do not land in the default partition, where the
   * planner knows nothing of them and their month could never get a partition.
   */
  async ensureFor(timestamps: Iterable<Date>, now = new Date()): Promise<Month[]> {
    const current = monthOf(now).from.getTime();
    const oldest = monthStarting(now, -BACKFILL_MONTHS).from.getTime();
    const past = new Map<string, Month>();
    for (const timestamp of timestamps) {
      const t = timestamp.getTime();
      if (t >= current || t < oldest) continue;
      const month = monthOf(timestamp);
      past.set(month.name, month);
    }
    if (past.size === 0) return [];
    return this.createMissing([...past.values()], BACKFILL_LOCK_WAIT_MS);
  }

  /**
   * A month whose entries already sit in the default partition (written before its partition
   * existed) is skipped, with a log line: those entries stay there, searched and retained as any
   * other.
   */
  private async createMissing(months: Month[], lockWaitMs?: number): Promise<Month[]> {
    const have = new Set((await this.partitions.months()).map((m) => m.name));
    const created: Month[] = [];
    for (const month of months.filter((m) => !have.has(m.name))) {
      const made = await this.store
        .transaction(async () => {
          if (lockWaitMs !== undefined) await this.partitions.waitForLocksAtMost(lockWaitMs);
          await this.partitions.lock();
          if ((await this.partitions.months()).some((m) => m.name === month.name)) return false;
          if (await this.partitions.defaultHolds(month)) {
            this.logger.warn(
              { partition: month.name },
              'audit log partition not created: the default partition holds entries of its month',
            );
            return false;
          }
          await this.partitions.create(month);
          return true;
        })
        .catch((error: unknown) => {
          if (lockWaitMs === undefined || !isLockTimeout(error)) throw error;
          this.logger.warn(
            { partition: month.name },
            'audit log partition not created: the log was busy; its entries go to the default partition',
          );
          return false;
        });
      if (made) created.push(month);
    }
    if (created.length > 0)
      this.logger.info({ partitions: created.map((m) => m.name) }, 'audit log partitions created');
    return created;
  }
}

function monthStarting(now: Date, offset: number): Month {
  return monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)));
}
