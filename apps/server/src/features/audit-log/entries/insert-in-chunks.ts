import type { Store } from '../../../storage/store.js';
import { entryReadBytes } from './read-weight.js';
import type { EntriesRepository } from './repository.js';
import type { NewLogRow } from './sql.js';

/**
 * About how many bytes of entries one INSERT statement carries. The embedded database runs a
 * statement on the event loop from start to end: one statement for a 10 MiB batch held it for
 * seconds, while a statement of this size takes a few milliseconds and each starts on a turn
 * of its own.
 */
export const INSERT_CHUNK_BYTES = 64 * 1024;

/** A row weighs in a statement what it weighs in a read: its metadata's commitments too. */
const rowBytes = (row: NewLogRow) => entryReadBytes(row.metadata, row.userAgent);

/** Consecutive runs of rows of at most INSERT_CHUNK_BYTES each (a larger row is alone). */
function chunksOf(rows: NewLogRow[]): NewLogRow[][] {
  const chunks: NewLogRow[][] = [];
  let chunk: NewLogRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(row);
    if (chunk.length > 0 && bytes + size > INSERT_CHUNK_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Inserts a batch in statements of bounded size, all in one transaction: all or nothing. */
export function insertInChunks(
  store: Pick<Store, 'transaction'>,
  entries: Pick<EntriesRepository, 'insert'>,
  rows: NewLogRow[],
): Promise<void> {
  const chunks = chunksOf(rows);
  if (chunks.length === 1) return entries.insert(rows);
  return store.transaction(async () => {
    for (const chunk of chunks) await entries.insert(chunk);
  });
}
