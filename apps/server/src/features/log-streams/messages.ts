import type { components } from '@secadmin/api-types';
import { isoMillis } from '../../lib/time.js';
import { webhookSignature } from './crypto.js';

type Schemas = components['schemas'];
type Entry = Schemas['LogEntry'];
type Checkpoint = { seq: number; hash: string; signature: string; createdAt: Date };

/** One batch of a stream: a contiguous range of seqs and the matching entries in it. */
export interface Batch {
  fromSeq: number;
  toSeq: number;
  entries: Entry[];
  checkpoint: Checkpoint | undefined;
}

export interface Request {
  headers: Record<string, string>;
  body: string;
}

/** `webhook-id` of a batch: the same on every retry of the same range. */
export const batchMessageId = (streamId: string, batch: Pick<Batch, 'fromSeq' | 'toSeq'>) =>
  `msg_${streamId}_${batch.fromSeq}_${batch.toSeq}`;

/** Standard Webhooks headers; during a rotation one signature per secret, space-separated. */
export function signedWebhook(
  id: string,
  body: string,
  secrets: string[],
  now = Date.now(),
): Request {
  const timestamp = Math.floor(now / 1000);
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((s) => webhookSignature(s, id, timestamp, body)).join(' '),
    },
    body,
  };
}

export function webhookBody(streamId: string, batch: Batch): string {
  const message: Schemas['LogStreamMessage'] = {
    type: 'audit_log.entries',
    stream: streamId,
    range: { fromSeq: batch.fromSeq, toSeq: batch.toSeq },
    entries: batch.entries,
    checkpoint: batch.checkpoint
      ? {
          seq: batch.checkpoint.seq,
          hash: batch.checkpoint.hash,
          signature: batch.checkpoint.signature,
          createdAt: isoMillis(batch.checkpoint.createdAt),
        }
      : null,
  };
  return JSON.stringify(message);
}

export function testBody(streamId: string): string {
  const message: Schemas['LogStreamTestMessage'] = { type: 'secadmin.test', stream: streamId };
  return JSON.stringify(message);
}

/** Splunk HEC: one event object per entry, concatenated. */
export function splunkRequest(
  token: string,
  destination: { index: string | null; sourcetype: string | null },
  entries: unknown[],
  time: (entry: unknown) => number,
): Request {
  const body = entries
    .map((entry) =>
      JSON.stringify({
        time: time(entry),
        source: 'secadmin',
        sourcetype: destination.sourcetype ?? 'secadmin:audit',
        ...(destination.index ? { index: destination.index } : {}),
        event: entry,
      }),
    )
    .join('');
  return {
    headers: { 'content-type': 'application/json', authorization: `Splunk ${token}` },
    body,
  };
}

/** An entry's `timestamp` as Unix seconds with milliseconds (HEC's `time`). */
export const entryTime = (entry: unknown) =>
  Date.parse((entry as { timestamp: string }).timestamp) / 1000;
