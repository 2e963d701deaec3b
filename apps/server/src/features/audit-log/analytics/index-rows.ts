import { words } from '../search/query.js';
import type { IndexedEntry } from './table.js';

/** A sealed entry's fields as the feed reads them from PostgreSQL. */
export interface SealedRow {
  seq: number;
  id: string;
  timestamp: Date;
  event: string;
  result: string;
  origin: string;
  actorId: string | null;
  actorType: string;
  actorEmail: string | null;
  targetId: string | null;
  targetType: string | null;
  ip: string | null;
  userAgent: string | null;
  city: string | null;
  country: string | null;
  region: string | null;
  /** The first characters of the metadata's JSON text, as search has always read it. */
  metadataText: string;
}

/**
 * JSON text with its escapes (`\n`, `\t`, `\"`, `\u001f`…) as separators: the letter of an
 * escape is not part of the word after it, as in the value a reader sees (and highlights mark).
 */
const jsonEscapesAsSpaces = (text: string) => text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, ' ');

/**
 * The entry as the store keeps it. Its words are the query parser's (`words`): search finds
 * exactly the words the parser makes of a query, and highlights mark the same ones.
 */
export function indexedEntry(row: SealedRow): IndexedEntry {
  const fields = [
    row.event,
    row.actorId,
    row.actorEmail,
    row.actorType,
    row.targetId,
    row.targetType,
    row.ip,
    row.userAgent,
    row.city,
    row.country,
    row.region,
    jsonEscapesAsSpaces(row.metadataText),
  ];
  // A field's words are joined by one space and fields by two, so that a phrase (` a b `) is
  // found within one field, never across the end of one and the start of the next.
  const text = fields
    .map((field) => (field ? words(field).join(' ') : ''))
    .filter((fieldWords) => fieldWords !== '')
    .join('  ');
  return {
    seq: row.seq,
    id: row.id,
    timestamp: row.timestamp.getTime(),
    event: row.event,
    result: row.result,
    origin: row.origin,
    actor_id: row.actorId ?? '',
    actor_type: row.actorType,
    actor_email: row.actorEmail ?? '',
    target_id: row.targetId ?? '',
    target_type: row.targetType ?? '',
    ip: row.ip ?? '',
    country: row.country ?? '',
    words: ` ${text} `,
  };
}
