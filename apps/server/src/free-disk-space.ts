import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';

/** How often the data dir's filesystem is looked at: one `statfs`, cheap enough to repeat every second (bench/results/findings.md). */
const CHECK_EVERY_MS = 1_000;

/**
 * docs/operations.md: whether the data dir's filesystem has less than `minFreeBytes` available.
 * Requests read the last answer (never wait for the disk); the check repeats on an unref'd
 * timer, so the state clears by itself once space is freed. `minFreeBytes` 0 turns it off.
 */
export class FreeDiskSpace {
  private low = false;
  private checking = false;
  private failing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    private readonly minFreeBytes: number,
    private readonly logger: Logger,
  ) {}

  /** Checks once, then keeps checking until `stop()`. */
  async start(): Promise<void> {
    if (this.minFreeBytes === 0) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** True while writes must be refused. */
  isLow(): boolean {
    return this.low;
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
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
    } finally {
      this.checking = false;
    }
  }
}
