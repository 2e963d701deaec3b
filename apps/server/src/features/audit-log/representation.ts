import type { components } from '@secadmin/api-types';
import { isoMillis } from '../../lib/time.js';
import type { LogRow } from './entries/sql.js';

type Schemas = components['schemas'];

/** Only the keys that are set: an anonymous actor has no `id` at all. */
function compact<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], null | undefined> } {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined && v !== null),
  ) as {
    [K in keyof T]?: Exclude<T[K], null | undefined>;
  };
}

function actor(row: LogRow): Schemas['LogActor'] {
  const result: Schemas['LogActor'] = { type: row.actorType };
  if (row.actorId !== null) result.id = row.actorId;
  if (row.actorEmailRedacted) result.email = null;
  else if (row.actorEmail !== null) result.email = row.actorEmail;
  return result;
}

/** The object, or undefined when it has no keys (so that it is left out). */
function nonEmpty<T extends object>(value: T): T | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

/** What list entries and full entries share; `location` differs between them. */
function logEntryBase(row: LogRow, location: Schemas['LogLocationDetail']) {
  const target = nonEmpty(compact({ id: row.targetId, type: row.targetType }));
  const context = nonEmpty(
    compact({ ip: row.ip, userAgent: row.userAgent, location: nonEmpty(location) }),
  );
  return {
    id: row.id,
    timestamp: isoMillis(row.timestamp),
    event: row.event,
    actor: actor(row),
    ...(target ? { target } : {}),
    ...(context ? { context } : {}),
    result: row.result as Schemas['LogEntry']['result'],
    origin: row.origin as Schemas['LogOrigin'],
  };
}

export function logListItem(row: LogRow): Schemas['LogEntryListItem'] {
  return logEntryBase(row, compact({ city: row.city, country: row.country }));
}

export function logDetail(row: LogRow): Schemas['LogEntry'] {
  const coordinates =
    row.lat !== null && row.lng !== null ? { lat: row.lat, lng: row.lng } : undefined;
  return {
    ...logEntryBase(
      row,
      compact({ city: row.city, country: row.country, region: row.region, coordinates }),
    ),
    ...(row.traceId !== null ? { traceId: row.traceId } : {}),
    ...(row.ingestedBy !== null ? { ingestedBy: row.ingestedBy } : {}),
    ...(row.receivedAt !== null ? { receivedAt: isoMillis(row.receivedAt) } : {}),
    metadata: row.metadata as Record<string, unknown>,
    seq: row.seq,
    hash: row.hash,
    prevHash: row.prevHash,
    digests: (row.digests ?? {}) as Record<string, string>,
    salts: (row.salts ?? {}) as Record<string, string>,
    canonicalVersion: row.canonicalVersion as Schemas['LogEntry']['canonicalVersion'],
  };
}
