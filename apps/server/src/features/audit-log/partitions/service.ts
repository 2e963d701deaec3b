import type { Logger } from 'pino';
import type { Store } from '../../../storage/store.js';
import { type Month, monthOf, type PartitionsRepository } from './repository.js';

/** Months created ahead of the current one. */
const AHEAD = 2;

/** Creates the log's monthly partitions ahead of time, safely from several instances. */
export class LogPartitions {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly partitions: Pick<
      PartitionsRepository,
      'months' | 'lock' | 'defaultHolds' | 'create'
    >,
    private readonly logger: Pick<Logger, 'info' | 'warn'>,
  ) {}

  /**
   * Creates the partitions of the current month and the next two when missing. A month
   * whose entries already sit in the default partition (a backfill written before its
   * partition existed) is skipped, with a log line: those entries stay in the default
   * partition, searched and retained as any other.
   */
  async ensureAhead(now = new Date()): Promise<Month[]> {
    const have = new Set((await this.partitions.months()).map((m) => m.name));
    const wanted = Array.from({ length: AHEAD + 1 }, (_, i) =>
      monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1))),
    ).filter((month) => !have.has(month.name));
    const created: Month[] = [];
    for (const month of wanted) {
      const made = await this.store.transaction(async () => {
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
      });
      if (made) created.push(month);
    }
    if (created.length > 0)
      this.logger.info({ partitions: created.map((m) => m.name) }, 'audit log partitions created');
    return created;
  }
}
