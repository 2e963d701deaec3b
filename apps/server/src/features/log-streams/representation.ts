import type { components } from '@secadmin/api-types';
import { isoMillis } from '../../lib/time.js';
import type { DeliveryRow, StreamRow } from './model.js';

type Schemas = components['schemas'];

/** A stream as every response shows it: never its secret or token. */
export function logStream(row: StreamRow, head: number): Schemas['LogStream'] {
  return {
    id: row.id,
    name: row.name,
    destination: {
      type: row.destinationType,
      url: row.url,
      ...(row.splunkIndex !== null ? { index: row.splunkIndex } : {}),
      ...(row.destinationType === 'splunk_hec'
        ? { sourcetype: row.sourcetype ?? 'secadmin:audit' }
        : {}),
    },
    filter: row.filter,
    status: row.status,
    batchSize: row.batchSize,
    deliveredThroughSeq: row.deliveredThroughSeq,
    lagEntries: Math.max(0, head - row.deliveredThroughSeq),
    lastDeliveryAt: row.lastDeliveryAt ? isoMillis(row.lastDeliveryAt) : null,
    lastError: row.lastError,
    consecutiveFailures: row.consecutiveFailures,
    createdAt: isoMillis(row.createdAt),
    updatedAt: isoMillis(row.updatedAt),
  };
}

export function delivery(row: DeliveryRow): Schemas['LogStreamDelivery'] {
  return {
    fromSeq: row.fromSeq,
    toSeq: row.toSeq,
    entries: row.entries,
    attempt: row.attempt,
    ...(row.httpStatus !== null ? { httpStatus: row.httpStatus } : {}),
    durationMs: row.durationMs,
    ...(row.error !== null ? { error: row.error } : {}),
    at: isoMillis(row.at),
  };
}
