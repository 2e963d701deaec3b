// Loading a log of many million entries through the API takes longer than the bench can wait:
// the bulk of the large log goes straight into PostgreSQL (COPY), already sealed, and the
// server's feeder copies it to the analytics store as it would any sealed entries.
//
// The chain rows written here carry placeholder hashes: the chain is not valid past the
// entries ingested through the API, so nothing verifies it after a bulk load.

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';

/** @import pg from 'pg' */

/** The columns of a log entry the bulk load writes, in the order `toCsv` gives them. */
export const ENTRY_COLUMNS =
  'id, timestamp, event, actor_id, actor_email, actor_type, target_id, target_type, ip, user_agent, city, country, result, metadata, origin, ingested_by, received_at, digests, salts';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The id of bulk entry `i`: the server's id format (`log_` and a lowercase ULID), with a
 * time part of zero, which no id the server makes has.
 * @param {number} i
 */
export function bulkId(i) {
  let text = '';
  for (let n = i; text.length < 16; n = Math.floor(n / 32)) text = ALPHABET[n % 32] + text;
  return `log_${'0'.repeat(10)}${text}`;
}

const PLACEHOLDER_HASH = 'b'.repeat(64);
/** Rows per chunk of COPY text. */
const CHUNK = 5_000;

/**
 * @param {number} from
 * @param {number} to
 * @param {(i: number) => string} line one row of COPY text, without its newline
 */
function rows(from, to, line) {
  return Readable.from(
    (function* () {
      for (let start = from; start < to; start += CHUNK) {
        let text = '';
        for (let i = start; i < Math.min(to, start + CHUNK); i++) text += `${line(i)}\n`;
        yield text;
      }
    })(),
  );
}

/**
 * Writes entries `from` ≤ i < `to` (as `csvRow(i)` gives each, in `ENTRY_COLUMNS` order) and
 * their chain rows, seqs from `firstSeq` in the order of i, sealed now. The server must not be
 * running (its sealer and feeder would read a chain being written).
 * @param {pg.Client} db
 * @param {{ from: number, to: number, firstSeq: number, csvRow: (i: number) => string }} options
 */
export async function bulkLoad(db, { from, to, firstSeq, csvRow }) {
  await pipeline(
    rows(from, to, csvRow),
    db.query(copyFrom(`COPY log_entries (${ENTRY_COLUMNS}) FROM STDIN WITH CSV`)),
  );
  const sealedAt = new Date().toISOString();
  await pipeline(
    rows(
      from,
      to,
      (i) =>
        `${firstSeq + i - from},${bulkId(i)},${PLACEHOLDER_HASH},${PLACEHOLDER_HASH},${sealedAt},2`,
    ),
    db.query(
      copyFrom(
        'COPY log_chain (seq, entry_id, hash, prev_hash, sealed_at, canonical_version) FROM STDIN WITH CSV',
      ),
    ),
  );
  await db.query('ANALYZE log_entries');
  await db.query('ANALYZE log_chain');
}
