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

/** A word of letters only: the words phrase keys are made of. */
const LETTERS = /^\p{L}+$/u;

/** The key of a qualifier's value: the field's name, a colon, the value. */
export const qualifierKey = (
  field: 'actor' | 'email' | 'target' | 'ip' | 'country',
  value: string,
) => `${field}:${value}`;

/**
 * The phrase keys of a field's words: each run of two and of three adjacent words made of letters
 * only, joined by a space. Words with digits (ids, numbers, addresses) are left out: they would
 * make a key of nearly every pair, and a phrase that holds one is checked in the text instead.
 */
export function phraseKeys(fieldWords: readonly string[]): string[] {
  const letters = fieldWords.map((word) => LETTERS.test(word));
  const keys: string[] = [];
  for (let i = 0; i + 1 < fieldWords.length; i++) {
    if (!letters[i] || !letters[i + 1]) continue;
    keys.push(fieldWords.slice(i, i + 2).join(' '));
    if (letters[i + 2]) keys.push(fieldWords.slice(i, i + 3).join(' '));
  }
  return keys;
}

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
  const fieldWords = fields.map((field) => (field ? words(field) : []));
  const text = fieldWords
    .filter((each) => each.length > 0)
    .map((each) => each.join(' '))
    .join('  ');
  // Qualifiers compare ids, IPs and target types exactly, emails and countries without case.
  const keys = new Set<string>();
  if (row.actorId) keys.add(qualifierKey('actor', row.actorId));
  if (row.actorEmail) keys.add(qualifierKey('email', row.actorEmail.toLowerCase()));
  if (row.targetId) keys.add(qualifierKey('target', row.targetId));
  if (row.targetType) keys.add(qualifierKey('target', row.targetType));
  if (row.ip) keys.add(qualifierKey('ip', row.ip));
  if (row.country) keys.add(qualifierKey('country', row.country.toLowerCase()));
  for (const each of fieldWords) for (const key of phraseKeys(each)) keys.add(key);
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
    keys: [...keys],
  };
}
