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

/** The canonical form new entries are sealed under. */
export const CANONICAL_VERSION = 2;

/** The canonical form versions a verifier knows. */
export const CANONICAL_VERSIONS: readonly number[] = [1, 2];

/**
 * The keys of the v1 object, from `actor` to `traceId`, in JCS order up to `digests`
 * (written out by hand: a sealer computes it for every entry).
 */
function sharedHead(entry: ChainEntry): string {
  const context = entry.context;
  const location = context?.location;
  const coordinates = location?.coordinates;
  return (
    `{"actor":{"id":${value(entry.actor.id)},"type":${value(entry.actor.type)}},` +
    `"context":{"ip":${value(context?.ip)},"location":{"city":${value(location?.city)},` +
    `"country":${value(location?.country)},"lat":${value(coordinates?.lat)},` +
    `"lng":${value(coordinates?.lng)},"region":${value(location?.region)}},` +
    `"userAgent":${value(context?.userAgent)}},"digests":${jcs(entry.digests ?? {})},`
  );
}

/**
 * The canonical form v1 of an entry: the JCS text of
 * `{v, seq, id, timestamp, event, origin, ingestedBy, receivedAt, actor: {type, id},
 * target: {type}, context: {ip, userAgent, location: {city, country, region, lat, lng}},
 * result, traceId, digests}` with every key present (absent → null). Written out with the
 * keys already in JCS order; a test proves it equal to `jcs` of that object.
 */
export function canonicalFormV1(entry: ChainEntry): string {
  return (
    sharedHead(entry) +
    `"event":${value(entry.event)},"id":${value(entry.id)},"ingestedBy":${value(entry.ingestedBy)},` +
    `"origin":${value(entry.origin)},"receivedAt":${value(entry.receivedAt)},` +
    `"result":${value(entry.result)},"seq":${value(entry.seq)},` +
    `"target":{"type":${value(entry.target?.type)}},"timestamp":${value(entry.timestamp)},` +
    `"traceId":${value(entry.traceId)},"v":1}`
  );
}

/**
 * The fields of an entry that v2 commits to by presence: every path to a value that is not
 * an object, outside the chain's own fields, `metadata` (committed by `metadataKeys` and its
 * digests; an export may leave it out) and the redactable `actor.email` and `target.id`
 * (committed by their digests; redaction removes them).
 */
const UNLISTED = new Set([
  'seq',
  'hash',
  'prevHash',
  'digests',
  'salts',
  'canonicalVersion',
  'metadata',
  'actor.email',
  'target.id',
]);

/** The sorted paths of the fields v2 commits to by presence (see `UNLISTED`). */
export function presentFields(entry: ChainEntry): string[] {
  const paths: string[] = [];
  const walk = (object: object, prefix: string) => {
    for (const [key, child] of Object.entries(object)) {
      if (child === undefined) continue;
      const path = prefix + key;
      if (UNLISTED.has(path)) continue;
      if (isPlainObject(child)) walk(child, `${path}.`);
      else paths.push(path);
    }
  };
  walk(entry, '');
  return paths.sort();
}

const isPlainObject = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The leaf paths a full entry may have that v2 lists, sorted: bit i stands for path i. */
const LEAVES = [
  'actor.id',
  'actor.type',
  'context.ip',
  'context.location.city',
  'context.location.coordinates.lat',
  'context.location.coordinates.lng',
  'context.location.country',
  'context.location.region',
  'context.userAgent',
  'event',
  'id',
  'ingestedBy',
  'origin',
  'receivedAt',
  'result',
  'target.type',
  'timestamp',
  'traceId',
];

/** A full entry's fields: a leaf's bit, an object's fields, or null (not listed). */
type FieldTree = { readonly [key: string]: number | FieldTree | null };

function fieldTree(prefix: string, keys: Record<string, FieldTree | null | 'leaf'>): FieldTree {
  const tree: Record<string, number | FieldTree | null> = {};
  for (const [key, node] of Object.entries(keys))
    tree[key] = node === 'leaf' ? LEAVES.indexOf(prefix + key) : node;
  return tree;
}

const FIELD_TREE = fieldTree('', {
  id: 'leaf',
  timestamp: 'leaf',
  event: 'leaf',
  actor: fieldTree('actor.', { type: 'leaf', id: 'leaf', email: null }),
  target: fieldTree('target.', { type: 'leaf', id: null }),
  context: fieldTree('context.', {
    ip: 'leaf',
    userAgent: 'leaf',
    location: fieldTree('context.location.', {
      city: 'leaf',
      country: 'leaf',
      region: 'leaf',
      coordinates: fieldTree('context.location.coordinates.', { lat: 'leaf', lng: 'leaf' }),
    }),
  }),
  result: 'leaf',
  traceId: 'leaf',
  origin: 'leaf',
  ingestedBy: 'leaf',
  receivedAt: 'leaf',
  metadata: null,
  seq: null,
  hash: null,
  prevHash: null,
  digests: null,
  salts: null,
  canonicalVersion: null,
});

/** The bits of the listed leaves `object` holds, or -1 when it holds anything else. */
function leafBits(object: object, tree: FieldTree): number {
  let bits = 0;
  for (const key in object) {
    const child = (object as Record<string, unknown>)[key];
    if (child === undefined) continue;
    const node = Object.hasOwn(tree, key) ? tree[key] : undefined;
    if (node === undefined) return -1;
    if (node === null) continue;
    if (typeof node === 'number') {
      if (isPlainObject(child)) return -1;
      bits |= 1 << node;
    } else {
      if (!isPlainObject(child)) return -1;
      const inner = leafBits(child, node);
      if (inner === -1) return -1;
      bits |= inner;
    }
  }
  return bits;
}

/** JCS texts of `fields` by leaf bits: a sealer meets a handful of field sets. */
const fieldsTexts = new Map<number, string>();

/** The JCS text of `presentFields(entry)`, without walking and sorting for a usual entry. */
function fieldsText(entry: ChainEntry): string {
  const bits = leafBits(entry, FIELD_TREE);
  if (bits === -1) return jcs(presentFields(entry));
  let text = fieldsTexts.get(bits);
  if (text === undefined) {
    text = jcs(LEAVES.filter((_, i) => bits & (1 << i)));
    fieldsTexts.set(bits, text);
  }
  return text;
}

/**
 * The sorted top-level metadata keys: those the entry shows, or, when it shows no metadata
 * (an export made without it), the keys its `metadata.<key>` digests name. A sealer made
 * one digest per key, so the two agree on an intact entry.
 */
export function metadataKeys(entry: Pick<ChainEntry, 'metadata' | 'digests'>): string[] {
  if (entry.metadata !== undefined && entry.metadata !== null)
    return Object.keys(entry.metadata).sort();
  return Object.keys(entry.digests ?? {})
    .filter((path) => path.startsWith(METADATA_PREFIX))
    .map((path) => path.slice(METADATA_PREFIX.length))
    .sort();
}

/**
 * The canonical form v2: the v1 object with `"v": 2` and two more keys, `fields` (the
 * sorted paths of the fields present, see `presentFields`) and `metadataKeys` (the sorted
 * top-level metadata keys). A field added to the entry, null or not, known or not, or a
 * metadata key added or removed, changes it.
 */
export function canonicalFormV2(entry: ChainEntry): string {
  return (
    sharedHead(entry) +
    `"event":${value(entry.event)},"fields":${fieldsText(entry)},` +
    `"id":${value(entry.id)},"ingestedBy":${value(entry.ingestedBy)},` +
    `"metadataKeys":${jcs(metadataKeys(entry))},` +
    `"origin":${value(entry.origin)},"receivedAt":${value(entry.receivedAt)},` +
    `"result":${value(entry.result)},"seq":${value(entry.seq)},` +
    `"target":{"type":${value(entry.target?.type)}},"timestamp":${value(entry.timestamp)},` +
    `"traceId":${value(entry.traceId)},"v":2}`
  );
}

/** The canonical form of the entry's version (`canonicalVersion`; absent: 1). */
export function canonicalForm(entry: ChainEntry): string {
  switch (entry.canonicalVersion ?? 1) {
    case 1:
      return canonicalFormV1(entry);
    case 2:
      return canonicalFormV2(entry);
    default:
      throw new RangeError(`canonical form v${entry.canonicalVersion} is unknown`);
  }
}

/** Lowercase hex SHA-256 of UTF-8(prevHash + "\n" + canonicalForm(entry)). */
export function entryHash(prevHash: string, entry: ChainEntry): string {
  return sha256Hex(`${prevHash}\n${canonicalForm(entry)}`);
}

/** The text a checkpoint's Ed25519 signature covers (signed as its UTF-8 bytes). */
export function checkpointMessage(seq: number, hash: string): string {
  return `secadmin-checkpoint:v1:${seq}:${hash}`;
}
