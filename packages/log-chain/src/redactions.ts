import { jcs } from './jcs.js';
import { sha256Hex } from './sha256.js';
import type { ChainEntry, RedactionRecord, RedactionSummary } from './types.js';

/** The most records a `user.deleted` entry lists in its metadata; above, a summary. */
export const REDACTION_LIST_LIMIT = 1000;

/** The event of the entry that records a user's deletion and the redaction it made. */
export const REDACTION_EVENT = 'user.deleted';

/** Lowercase hex SHA-256 of the JCS text of the list of records, in the order given. */
export function redactionsDigest(records: readonly RedactionRecord[]): string {
  return sha256Hex(jcs(records));
}

/**
 * What a `user.deleted` entry's `metadata.redactions` holds for the records of its
 * redaction: the list itself, or, above `limit` records, their count and digest.
 */
export function redactionsMetadata(
  records: readonly RedactionRecord[],
  limit = REDACTION_LIST_LIMIT,
): readonly RedactionRecord[] | RedactionSummary {
  if (records.length <= limit) return records;
  return { count: records.length, sha256: redactionsDigest(records) };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` is a redaction record: `{id, seq, fields}` and nothing else. */
export function isRedactionRecord(value: unknown): value is RedactionRecord {
  if (!isObject(value) || Object.keys(value).length !== 3) return false;
  const { id, seq, fields } = value;
  return (
    typeof id === 'string' &&
    (seq === null || (Number.isSafeInteger(seq) && (seq as number) >= 1)) &&
    Array.isArray(fields) &&
    fields.length > 0 &&
    fields.every((field) => typeof field === 'string')
  );
}

function isSummary(value: unknown): value is RedactionSummary {
  return (
    isObject(value) &&
    Object.keys(value).length === 2 &&
    Number.isSafeInteger(value.count) &&
    (value.count as number) >= 0 &&
    typeof value.sha256 === 'string'
  );
}

/**
 * What a sealed entry says it redacted: for a service `user.deleted` entry that shows its
 * metadata, its list of records or its summary (the list then comes from elsewhere);
 * undefined for any other entry, or one whose `metadata.redactions` is neither.
 */
export function redactionsOf(
  entry: ChainEntry,
): { records: readonly RedactionRecord[] } | { summary: RedactionSummary } | undefined {
  if (entry.event !== REDACTION_EVENT || entry.origin !== 'service') return undefined;
  const held = entry.metadata?.redactions;
  if (Array.isArray(held)) return held.every(isRedactionRecord) ? { records: held } : undefined;
  return isSummary(held) ? { summary: held } : undefined;
}

/**
 * The committed fields an entry no longer holds: the paths of its digests without a salt
 * (a field present with its salt is checked against its digest; one that is gone has none).
 */
export function absentFields(entry: Pick<ChainEntry, 'digests' | 'salts'>): string[] {
  const salts = entry.salts ?? {};
  return Object.keys(entry.digests ?? {})
    .filter((path) => !Object.hasOwn(salts, path))
    .sort();
}
