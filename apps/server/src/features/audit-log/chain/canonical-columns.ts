import type { ChainEntry } from '@secadmin/log-chain';
import { isoMillis } from '../../../lib/time.js';
import type { LogRow } from '../repository.js';

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

/**
 * The entry as its canonical form sees it at `seq`: `canonicalForm` of it is that of
 * `logDetail(row)` with that seq, built straight from the columns the form holds (the
 * sealer builds one per entry; the whole API representation cost as much as the canonical
 * form itself). Absent and null are the same to the canonical form.
 */
export function chainEntry(row: CanonicalColumns, seq: number): ChainEntry {
  return {
    id: row.id,
    timestamp: isoMillis(row.timestamp),
    event: row.event,
    actor: { type: row.actorType, id: row.actorId },
    target: { type: row.targetType },
    context: {
      ip: row.ip,
      userAgent: row.userAgent,
      location: {
        city: row.city,
        country: row.country,
        region: row.region,
        coordinates: row.lat !== null && row.lng !== null ? { lat: row.lat, lng: row.lng } : null,
      },
    },
    result: row.result,
    traceId: row.traceId,
    origin: row.origin,
    ingestedBy: row.ingestedBy,
    receivedAt: row.receivedAt === null ? null : isoMillis(row.receivedAt),
    digests: (row.digests ?? {}) as Record<string, string>,
    seq,
    hash: null,
    prevHash: null,
    salts: {},
  };
}
