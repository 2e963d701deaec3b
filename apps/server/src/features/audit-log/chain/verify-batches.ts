import type { ChainEntry } from '@secadmin/log-chain';

/**
 * About how many bytes of entries one read of the chain brings: the embedded database returns
 * a read in one go on the event loop (2,000 entries of 16 KiB held it for a third of a second,
 * and a mebibyte still for tens of milliseconds on a loaded machine).
 */
const BATCH_BYTES = 256 * 1024;
/** What the largest entry weighs: 16 KiB of metadata, a 1,024-character User-Agent, the rest. */
const LARGEST_ENTRY_BYTES = 20 * 1024;
/** Rows per read however small the entries: memory holds one read. */
const MOST_ROWS = 2_000;

/** Roughly what an entry weighs in a read. */
const entryBytes = (entry: ChainEntry) =>
  JSON.stringify(entry.metadata ?? {}).length + (entry.context?.userAgent?.length ?? 0) + 512;

/**
 * How many chain rows the next read of a verification takes: as many as fit BATCH_BYTES if they
 * weigh what the largest entry of the previous read did (the largest possible at first).
 */
export class VerifyBatches {
  private rows = Math.floor(BATCH_BYTES / LARGEST_ENTRY_BYTES);

  get size(): number {
    return this.rows;
  }

  /** The entries of the read just made. */
  observe(entries: readonly ChainEntry[]): void {
    let largest = 0;
    for (const entry of entries) largest = Math.max(largest, entryBytes(entry));
    if (largest > 0)
      this.rows = Math.min(MOST_ROWS, Math.max(1, Math.floor(BATCH_BYTES / largest)));
  }
}
