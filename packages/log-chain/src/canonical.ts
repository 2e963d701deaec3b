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

/** The canonical form v1 of an entry: JCS of a fixed object in which every key is present. */
export function canonicalForm(entry: ChainEntry): string {
  const location = entry.context?.location;
  return jcs({
    v: 1,
    seq: entry.seq,
    id: entry.id,
    timestamp: entry.timestamp,
    event: entry.event,
    origin: entry.origin,
    ingestedBy: entry.ingestedBy ?? null,
    receivedAt: entry.receivedAt ?? null,
    actor: { type: entry.actor.type, id: entry.actor.id ?? null },
    target: { type: entry.target?.type ?? null },
    context: {
      ip: entry.context?.ip ?? null,
      userAgent: entry.context?.userAgent ?? null,
      location: {
        city: location?.city ?? null,
        country: location?.country ?? null,
        region: location?.region ?? null,
        lat: location?.coordinates?.lat ?? null,
        lng: location?.coordinates?.lng ?? null,
      },
    },
    result: entry.result,
    traceId: entry.traceId ?? null,
    digests: entry.digests,
  });
}

/** Lowercase hex SHA-256 of UTF-8(prevHash + "\n" + canonicalForm(entry)). */
export function entryHash(prevHash: string, entry: ChainEntry): string {
  return sha256Hex(`${prevHash}\n${canonicalForm(entry)}`);
}

/** The text a checkpoint's Ed25519 signature covers (signed as its UTF-8 bytes). */
export function checkpointMessage(seq: number, hash: string): string {
  return `secadmin-checkpoint:v1:${seq}:${hash}`;
}
