import { CANONICAL_VERSIONS, fieldDigest, REDACTED } from './canonical.js';
import type { ChainEntry } from './types.js';

/** What a field of a full entry holds: a value, an object of known fields, or free JSON. */
type Shape = 'value' | 'json' | { readonly [field: string]: Shape };

/** Every field a full entry may have (`GET /v1/logs/{id}`, the JSON export), and no other. */
const ENTRY_SHAPE: Shape = {
  id: 'value',
  timestamp: 'value',
  event: 'value',
  actor: { type: 'value', id: 'value', email: 'value' },
  target: { type: 'value', id: 'value' },
  context: {
    ip: 'value',
    userAgent: 'value',
    location: {
      city: 'value',
      country: 'value',
      region: 'value',
      coordinates: { lat: 'value', lng: 'value' },
    },
  },
  result: 'value',
  traceId: 'value',
  origin: 'value',
  ingestedBy: 'value',
  receivedAt: 'value',
  metadata: 'json',
  seq: 'value',
  hash: 'value',
  prevHash: 'value',
  digests: 'json',
  salts: 'json',
  canonicalVersion: 'value',
};

/** The one field a full entry shows as null: a redacted `actor.email`. */
const NULLABLE = new Set(['actor.email']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why a sealed entry has a field that a full entry never has — a field the canonical form
 * does not know, a null the API never shows, an empty object — or undefined.
 */
export function fieldProblem(entry: ChainEntry): string | undefined {
  const walk = (
    object: Record<string, unknown>,
    shape: Shape,
    prefix: string,
  ): string | undefined => {
    if (typeof shape === 'string') return undefined;
    if (prefix !== '' && Object.keys(object).length === 0)
      return `${prefix.slice(0, -1)} is an empty object`;
    for (const [key, child] of Object.entries(object)) {
      const path = prefix + key;
      const known = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (known === undefined) return `${path} is not a field of an entry`;
      if (child === undefined) continue;
      if (child === null) {
        if (!NULLABLE.has(path)) return `${path} is null`;
        continue;
      }
      if (typeof known === 'string') continue;
      if (!isObject(child)) return `${path} is not an object`;
      const problem = walk(child, known, `${path}.`);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(entry as unknown as Record<string, unknown>, ENTRY_SHAPE, '');
}

const METADATA_PREFIX = 'metadata.';

/**
 * Why an entry's redactable fields do not match its digests, or undefined if they do.
 * A sealer made one digest per field present (`actor.email`, `target.id`, each top-level
 * metadata key), so every such field has a digest and every digest has its field: with
 * its salt, a value matching the digest; without (redacted), `actor.email` null,
 * `target.id` absent, a metadata value `"[redacted]"` (with its salt, that is a value like
 * any other). A metadata key added as "[redacted]", or one removed, fails. An entry that shows no metadata at all (an export
 * made without it) has its `metadata.*` digests taken as they are.
 */
export function digestProblem(entry: ChainEntry): string | undefined {
  const digests = entry.digests ?? {};
  const salts = entry.salts ?? {};
  for (const path of Object.keys(salts))
    if (!Object.hasOwn(digests, path)) return `${path} has a salt but no digest`;
  const metadata = entry.metadata;
  const metadataShown = metadata !== undefined;
  if (metadataShown && !isObject(metadata)) return 'metadata is not an object';

  /** `held`: the field is in the entry; `redacted`: it is, in its redacted form. */
  const check = (path: string, held: boolean, redacted: boolean, value: unknown) => {
    const digest = digests[path];
    const salt = salts[path];
    if (digest === undefined) return held ? `${path} is not committed by a digest` : undefined;
    if (salt === undefined) {
      if (redacted) return undefined;
      return held ? `${path} has a value but no salt` : `${path} has a digest but no field`;
    }
    if (!held || redacted) return `${path} has a salt but no value`;
    return fieldDigest(salt, value) === digest ? undefined : `${path} does not match its digest`;
  };

  const actor = entry.actor as Record<string, unknown>;
  const email = actor.email;
  const problem =
    check('actor.email', Object.hasOwn(actor, 'email'), email === null, email) ??
    check('target.id', entry.target?.id != null, entry.target?.id == null, entry.target?.id);
  if (problem) return problem;
  for (const path of Object.keys(digests)) {
    if (path === 'actor.email' || path === 'target.id') continue;
    if (!path.startsWith(METADATA_PREFIX)) return `${path} is not a redactable field`;
    if (!metadataShown) continue;
    const key = path.slice(METADATA_PREFIX.length);
    const held = Object.hasOwn(metadata, key);
    const value = held ? metadata[key] : undefined;
    // With its salt, "[redacted]" is a value the entry was written with, not a redaction.
    const redacted = held && value === REDACTED && !Object.hasOwn(salts, path);
    const keyProblem = check(path, held, redacted, value);
    if (keyProblem) return keyProblem;
  }
  if (metadataShown)
    for (const key of Object.keys(metadata))
      if (!Object.hasOwn(digests, METADATA_PREFIX + key))
        return `${METADATA_PREFIX}${key} is not committed by a digest`;
  return undefined;
}

/**
 * Why a sealed entry cannot be the one its hash sealed, before its hash is computed: an
 * unknown canonical form version, a field an entry never has, or redactable fields that do
 * not match their digests. Undefined when none.
 */
export function entryProblem(entry: ChainEntry): string | undefined {
  const version = entry.canonicalVersion;
  if (version !== undefined && !CANONICAL_VERSIONS.includes(version as number))
    return `canonicalVersion ${JSON.stringify(version)} is not a version this verifier knows`;
  return fieldProblem(entry) ?? digestProblem(entry);
}

/**
 * The first of `entries` (sealed, in seq order) without metadata when another shows it: an
 * export holds metadata for every entry or for none (`includeMetadata: false`), so an
 * entry whose metadata object was removed is found.
 */
export function missingMetadata(entries: readonly ChainEntry[]): ChainEntry | undefined {
  if (!entries.some((entry) => entry.metadata !== undefined)) return undefined;
  return entries.find((entry) => entry.metadata === undefined);
}

/** Whether sealed entries are given and none shows metadata (`includeMetadata: false`). */
export function metadataOmitted(entries: readonly ChainEntry[]): boolean {
  return entries.length > 0 && entries.every((entry) => entry.metadata === undefined);
}

/**
 * How many entries the checkpoints prove exist after `lastSeq`, the last sealed entry
 * given: the newest checkpoint's seq minus it, or 0.
 */
export function truncatedAfter(
  lastSeq: number | undefined,
  checkpoints: readonly { seq: number }[],
): number {
  if (lastSeq === undefined) return 0;
  const newest = checkpoints.reduce((top, checkpoint) => Math.max(top, checkpoint.seq), 0);
  return Math.max(0, newest - lastSeq);
}
