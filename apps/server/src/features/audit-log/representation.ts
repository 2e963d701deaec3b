import type { components } from '@secadmin/api-types';
import { isoMillis } from '../../lib/time.js';
import type { LogRow } from './entries/sql.js';

type Schemas = components['schemas'];
type Entry = Schemas['LogEntry'];
type Location = Schemas['LogLocationDetail'];

/** A LogRow with its instants and jsonb columns as PostgreSQL's text of them (see `logDetailJson`). */
export type LogRowAsText = Omit<
  LogRow,
  'timestamp' | 'receivedAt' | 'metadata' | 'digests' | 'salts'
> & {
  timestamp: string;
  receivedAt: string | null;
  metadata: string;
  digests: string | null;
  salts: string | null;
};
type AnyLogRow = LogRow | LogRowAsText;

const iso = (at: Date | string) => (typeof at === 'string' ? at : isoMillis(at));

// The objects are built key by key, in the order the API has always written them, and only
// with the keys that are set (an anonymous actor has no `id` at all): no spread or filter
// of intermediate objects, as every entry of a page, an export or a stream batch goes
// through here.

function actor(row: AnyLogRow): Schemas['LogActor'] {
  const result: Schemas['LogActor'] = { type: row.actorType };
  if (row.actorId !== null) result.id = row.actorId;
  if (row.actorEmailRedacted) result.email = null;
  else if (row.actorEmail !== null) result.email = row.actorEmail;
  return result;
}

/** What list entries and full entries share; `location` differs between them. */
function logEntryBase(row: AnyLogRow, location: Location | undefined): Entry {
  const entry = {
    id: row.id,
    timestamp: iso(row.timestamp),
    event: row.event,
    actor: actor(row),
  } as Entry;
  if (row.targetId !== null || row.targetType !== null) {
    const target: NonNullable<Entry['target']> = {};
    if (row.targetId !== null) target.id = row.targetId;
    if (row.targetType !== null) target.type = row.targetType;
    entry.target = target;
  }
  if (row.ip !== null || row.userAgent !== null || location) {
    const context: NonNullable<Entry['context']> = {};
    if (row.ip !== null) context.ip = row.ip;
    if (row.userAgent !== null) context.userAgent = row.userAgent;
    if (location) context.location = location;
    entry.context = context;
  }
  entry.result = row.result as Entry['result'];
  entry.origin = row.origin as Schemas['LogOrigin'];
  return entry;
}

/** City and country (a list item's), with region and coordinates for a full entry. */
function locationOf(row: AnyLogRow, full: boolean): Location | undefined {
  const location: Location = {};
  if (row.city !== null) location.city = row.city;
  if (row.country !== null) location.country = row.country;
  if (full && row.region !== null) location.region = row.region;
  if (full && row.lat !== null && row.lng !== null)
    location.coordinates = { lat: row.lat, lng: row.lng };
  return Object.keys(location).length > 0 ? location : undefined;
}

export function logListItem(row: LogRow): Schemas['LogEntryListItem'] {
  return logEntryBase(row, locationOf(row, false));
}

/** A full entry up to `receivedAt`: all but metadata, the chain columns, digests and salts. */
function detailHead(row: AnyLogRow): Entry {
  const entry = logEntryBase(row, locationOf(row, true));
  if (row.traceId !== null) entry.traceId = row.traceId;
  if (row.ingestedBy !== null) entry.ingestedBy = row.ingestedBy;
  if (row.receivedAt !== null) entry.receivedAt = iso(row.receivedAt);
  return entry;
}

export function logDetail(row: LogRow): Entry {
  const entry = detailHead(row);
  entry.metadata = row.metadata as Record<string, unknown>;
  entry.seq = row.seq;
  entry.hash = row.hash;
  entry.prevHash = row.prevHash;
  entry.digests = (row.digests ?? {}) as Record<string, string>;
  entry.salts = (row.salts ?? {}) as Record<string, string>;
  entry.canonicalVersion = row.canonicalVersion as Entry['canonicalVersion'];
  return entry;
}

/**
 * `logDetail` as JSON text, with metadata, digests and salts spliced in as PostgreSQL wrote
 * them: the same JSON value (the driver would only have parsed that text), without parsing
 * and writing again what is most of an entry's bytes (nor its instants).
 */
export function logDetailJson(row: LogRowAsText): string {
  const entry = detailHead(row);
  entry.seq = row.seq;
  entry.hash = row.hash;
  entry.prevHash = row.prevHash;
  entry.canonicalVersion = row.canonicalVersion as Entry['canonicalVersion'];
  const head = JSON.stringify(entry);
  return `${head.slice(0, -1)},"metadata":${row.metadata},"digests":${row.digests ?? '{}'},"salts":${row.salts ?? '{}'}}`;
}
