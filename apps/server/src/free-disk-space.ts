import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import { type Job, pollLoop } from './lib/poll-loop.js';

/** How often the data dir's filesystem is looked at: one `statfs`, cheap enough to repeat every second (bench/results/findings.md). */
const CHECK_EVERY_MS = 1_000;

/**
 * docs/operations.md: whether the data dir's filesystem has less than `minFreeBytes` available.
 * Requests read the last answer (never wait for the disk); the job repeats the check, so the
 * state clears by itself once space is freed. `minFreeBytes` 0 turns it off.
 */
export class FreeDiskSpace implements Job {
  private low = false;
  private failing = false;
  private readonly loop: Job;

  constructor(
    private readonly dir: string,
    private readonly minFreeBytes: number,
    private readonly logger: Logger,
  ) {
    this.loop = pollLoop({
      name: 'free disk space check',
      everyMs: CHECK_EVERY_MS,
      logger,
      firstTurn: 'after-a-wait',
      turn: () => this.check(),
    });
  }

  /** The first check, before the server takes requests. */
  async prime(): Promise<void> {
    if (this.minFreeBytes > 0) await this.check();
  }

  start(): void {
    if (this.minFreeBytes > 0) this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** True while writes must be refused. */
  isLow(): boolean {
    return this.low;
  }

  private async check(): Promise<void> {
    try {
      const stats = await statfs(this.dir);
      const freeBytes = stats.bavail * stats.bsize;
      const low = freeBytes < this.minFreeBytes;
      if (low !== this.low) {
        const fields = {
          freeMiB: Math.floor(freeBytes / 2 ** 20),
          minFreeMiB: this.minFreeBytes / 2 ** 20,
          dataDir: this.dir,
        };
        if (low)
          this.logger.error(
            fields,
            'free disk space below SECADMIN_MIN_FREE_DISK_MB: refusing writes',
          );
        else this.logger.info(fields, 'free disk space recovered: accepting writes');
      }
      this.low = low;
      this.failing = false;
    } catch (error) {
      // Keep the last answer: a failed look is no reason to refuse, or allow, writes.
      if (!this.failing)
        this.logger.warn(
          { err: { message: (error as Error).message } },
          'cannot read free disk space',
        );
      this.failing = true;
    }
  }
}
