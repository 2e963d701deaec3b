/** Metadata is at most this many bytes serialized (the ingest bound). */
const METADATA_BYTES = 16 * 1024;
/** What a metadata key adds to a read besides its text in the metadata: a digest and a salt. */
const COMMITMENT_BYTES = 128;
/** The most keys metadata of METADATA_BYTES holds: `"k":0,` is the shortest key and value. */
const MOST_KEYS = Math.floor(METADATA_BYTES / 6);

/**
 * What the largest entry weighs in a read: the most metadata, a digest, a salt and the path
 * twice for each of its most keys, a 1,024-character User-Agent, the rest.
 */
export const LARGEST_ENTRY_BYTES = METADATA_BYTES + MOST_KEYS * (2 + COMMITMENT_BYTES) + 1024 + 512;

/** What the largest entry weighs as CSV cells and metadata text: no digests or salts. */
export const LARGEST_CSV_ROW_BYTES = METADATA_BYTES + 1024 + 512;

/**
 * Roughly what an entry weighs in a read: its metadata, the digest and salt of each key (an
 * entry of many short keys weighs ten times its metadata), its User-Agent, the rest.
 */
export function entryReadBytes(metadata: unknown, userAgent: string | null | undefined): number {
  let bytes = JSON.stringify(metadata ?? {}).length + (userAgent?.length ?? 0) + 512;
  if (metadata !== null && typeof metadata === 'object')
    for (const key of Object.keys(metadata)) bytes += 2 * key.length + COMMITMENT_BYTES;
  return bytes;
}
