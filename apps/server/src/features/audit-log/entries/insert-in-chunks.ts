import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Store } from '../../../storage/store.js';
import { entryReadBytes } from './read-weight.js';
import type { EntriesRepository } from './repository.js';
import type { NewLogRow } from './sql.js';

/**
 * About how many bytes of entries one INSERT statement carries. What costs is the round trip
 * of each statement: a batch of wide entries in statements of 64 KiB (one entry each) spent
 * most of its transaction waiting for its turns.
 */
const INSERT_STATEMENT_BYTES = 1024 * 1024;

/** A row weighs in a statement what it weighs in a read: its metadata's commitments too. */
const rowBytes = (row: NewLogRow) => entryReadBytes(row.metadata, row.userAgent);

/** Consecutive runs of rows of at most `limit` bytes each (a larger row is alone). */
function chunksOf(rows: NewLogRow[], limit: number): NewLogRow[][] {
  const chunks: NewLogRow[][] = [];
  let chunk: NewLogRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(row);
    if (chunk.length > 0 && bytes + size > limit) {
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

/**
 * Inserts a batch in statements of at most about INSERT_STATEMENT_BYTES, all in one transaction:
 * all or nothing. Each statement's parameters are built before the transaction opens or
 * while the previous statement runs, so that the transaction lasts about as long as the
 * database's share of the work, not that plus this process's.
 */
export async function insertInChunks(
  store: Pick<Store, 'transaction'>,
  entries: Pick<EntriesRepository, 'prepare' | 'write'>,
  rows: NewLogRow[],
): Promise<void> {
  const [first = [], ...rest] = chunksOf(rows, INSERT_STATEMENT_BYTES);
  let prepared = await entries.prepare(first);
  if (rest.length === 0) return entries.write(prepared);
  await store.transaction(async () => {
    for (const chunk of rest) {
      [, prepared] = await Promise.all([
        entries.write(prepared),
        nextTurn().then(() => entries.prepare(chunk)),
      ]);
    }
    await entries.write(prepared);
  });
}
