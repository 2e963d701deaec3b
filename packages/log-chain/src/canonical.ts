import { jcs } from './jcs.js';
import { sha256Hex } from './sha256.js';
import type { ChainEntry } from './types.js';

/** The `prevHash` of the entry with seq 1. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a redacted metadata value is replaced with. */
export const REDACTED = '[redacted]';

/** The metadata key of a `metadata.<key>` digest path. */
const METADATA_PREFIX = 'metadata.';

/**
 * The redactable fields an entry holds, by digest path: `actor.email`, `target.id` and
 * `metadata.<top-level key>`. A field absent, null, or (metadata) "[redacted]" with no
 * salt is not held. These values enter the canonical form only through their digests.
 */
export function redactableFields(
  entry: Pick<ChainEntry, 'actor' | 'target' | 'metadata'>,
  salts?: Record<string, string>,
): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (entry.actor.email != null) fields.set('actor.email', entry.actor.email);
  if (entry.target?.id != null) fields.set('target.id', entry.target.id);
  for (const [key, value] of Object.entries(entry.metadata ?? {})) {
    const path = METADATA_PREFIX + key;
    if (value === undefined) continue;
    if (value === REDACTED && salts !== undefined && salts[path] === undefined) continue;
    fields.set(path, value);
  }
  return fields;
}

/** Lowercase hex SHA-256 of UTF-8(salt + ":" + jcs(value)). */
export function fieldDigest(salt: string, value: unknown): string {
  return sha256Hex(`${salt}:${jcs(value)}`);
}

/** A value of the canonical form: JCS, with absent as null. */
const value = (v: unknown): string => (v === undefined || v === null ? 'null' : jcs(v));

/**
 * The canonical form v1 of an entry: the JCS text of
 * `{v, seq, id, timestamp, event, origin, ingestedBy, receivedAt, actor: {type, id},
 * target: {type}, context: {ip, userAgent, location: {city, country, region, lat, lng}},
 * result, traceId, digests}` with every key present (absent → null). Written out with the
 * keys already in JCS order (a sealer computes it for every entry); a test proves it equal
 * to `jcs` of that object.
 */
export function canonicalForm(entry: ChainEntry): string {
  const context = entry.context;
  const location = context?.location;
  const coordinates = location?.coordinates;
  return (
    `{"actor":{"id":${value(entry.actor.id)},"type":${value(entry.actor.type)}},` +
    `"context":{"ip":${value(context?.ip)},"location":{"city":${value(location?.city)},` +
    `"country":${value(location?.country)},"lat":${value(coordinates?.lat)},` +
    `"lng":${value(coordinates?.lng)},"region":${value(location?.region)}},` +
    `"userAgent":${value(context?.userAgent)}},"digests":${jcs(entry.digests ?? {})},` +
    `"event":${value(entry.event)},"id":${value(entry.id)},"ingestedBy":${value(entry.ingestedBy)},` +
    `"origin":${value(entry.origin)},"receivedAt":${value(entry.receivedAt)},` +
    `"result":${value(entry.result)},"seq":${value(entry.seq)},` +
    `"target":{"type":${value(entry.target?.type)}},"timestamp":${value(entry.timestamp)},` +
    `"traceId":${value(entry.traceId)},"v":1}`
  );
}

/** Lowercase hex SHA-256 of UTF-8(prevHash + "\n" + canonicalForm(entry)). */
export function entryHash(prevHash: string, entry: ChainEntry): string {
  return sha256Hex(`${prevHash}\n${canonicalForm(entry)}`);
}

/** The text a checkpoint's Ed25519 signature covers (signed as its UTF-8 bytes). */
export function checkpointMessage(seq: number, hash: string): string {
  return `secadmin-checkpoint:v1:${seq}:${hash}`;
}
