/**
 * About how many bytes one read of large rows brings: a read is held in memory whole, and its
 * rows are parsed on the event loop.
 */
const BATCH_BYTES = 256 * 1024;
/** Rows per read however small they are: memory holds one read. */
const MOST_ROWS = 2_000;

/**
 * How many rows the next read of a long walk takes: as many as fit BATCH_BYTES if they weigh
 * what the largest row of the previous read did (`largestBytes`, the most a row can weigh, at
 * first).
 */
export class ReadBatches<T> {
  private rows: number;

  constructor(
    private readonly weigh: (row: T) => number,
    largestBytes: number,
  ) {
    this.rows = Math.max(1, Math.floor(BATCH_BYTES / largestBytes));
  }

  get size(): number {
    return this.rows;
  }

  /** The rows of the read just made. */
  observe(rows: readonly T[]): void {
    let largest = 0;
    for (const row of rows) largest = Math.max(largest, this.weigh(row));
    if (largest > 0)
      this.rows = Math.min(MOST_ROWS, Math.max(1, Math.floor(BATCH_BYTES / largest)));
  }
}
