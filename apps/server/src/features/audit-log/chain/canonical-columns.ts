import type { ChainEntry } from '@secadmin/log-chain';
import { isoMillis } from '../../../lib/time.js';
import type { LogRow } from '../entries/sql.js';

/** The columns of an entry that its canonical form holds (metadata only through digests). */
export type CanonicalColumns = Pick<
  LogRow,
  | 'id'
  | 'timestamp'
  | 'event'
  | 'actorId'
  | 'actorType'
  | 'targetType'
  | 'ip'
  | 'userAgent'
  | 'city'
  | 'country'
  | 'region'
  | 'lat'
  | 'lng'
  | 'result'
  | 'traceId'
  | 'origin'
  | 'ingestedBy'
  | 'receivedAt'
  | 'digests'
>;

/** Sets `key` only when the column has a value: the API leaves a null column's field out. */
function put<T extends object>(object: T, key: string, value: unknown): T {
  if (value !== null && value !== undefined) (object as Record<string, unknown>)[key] = value;
  return object;
}

/**
 * The entry as its canonical form (of `version`) sees it at `seq`: `canonicalForm` of it is
 * that of `logDetail(row)` with that seq, built straight from the columns the form holds
 * (the sealer builds one per entry; the whole API representation cost as much as the
 * canonical form itself). A null column's field is left out, as the API leaves it out (v2
 * commits to the fields present); metadata is left out, its keys come from the digests.
 */
export function chainEntry(row: CanonicalColumns, seq: number, version: number): ChainEntry {
  const location = put({}, 'city', row.city);
  put(location, 'country', row.country);
  put(location, 'region', row.region);
  if (row.lat !== null && row.lng !== null)
    put(location, 'coordinates', { lat: row.lat, lng: row.lng });
  const context = put({}, 'ip', row.ip);
  put(context, 'userAgent', row.userAgent);
  if (Object.keys(location).length > 0) put(context, 'location', location);
  const entry: ChainEntry = {
    id: row.id,
    timestamp: isoMillis(row.timestamp),
    event: row.event,
    actor: put({ type: row.actorType }, 'id', row.actorId),
    target: put({}, 'type', row.targetType),
    context,
    result: row.result,
    origin: row.origin,
    digests: (row.digests ?? {}) as Record<string, string>,
    seq,
    hash: null,
    prevHash: null,
    salts: {},
    canonicalVersion: version,
  };
  put(entry, 'traceId', row.traceId);
  put(entry, 'ingestedBy', row.ingestedBy);
  put(entry, 'receivedAt', row.receivedAt === null ? null : isoMillis(row.receivedAt));
  return entry;
}
