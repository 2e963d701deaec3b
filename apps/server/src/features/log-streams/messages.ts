import type { components } from '@secadmin/api-types';
import { isoMillis } from '../../lib/time.js';
import type { SealedEntry } from '../audit-log/api.js';
import { webhookSignature } from './crypto.js';

type Schemas = components['schemas'];
type Checkpoint = { seq: number; hash: string; signature: string; createdAt: Date };

/** One batch of a stream: a contiguous range of seqs and the matching entries in it. */
export interface Batch {
  fromSeq: number;
  toSeq: number;
  entries: SealedEntry[];
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

/** The entries are JSON already: the message is written around them. */
export function webhookBody(streamId: string, batch: Batch): string {
  const { type, stream, range, checkpoint }: Omit<Schemas['LogStreamMessage'], 'entries'> = {
    type: 'audit_log.entries',
    stream: streamId,
    range: { fromSeq: batch.fromSeq, toSeq: batch.toSeq },
    checkpoint: batch.checkpoint
      ? {
          seq: batch.checkpoint.seq,
          hash: batch.checkpoint.hash,
          signature: batch.checkpoint.signature,
          createdAt: isoMillis(batch.checkpoint.createdAt),
        }
      : null,
  };
  const entries = batch.entries.map((entry) => entry.json).join(',');
  return `{"type":${JSON.stringify(type)},"stream":${JSON.stringify(stream)},"range":${JSON.stringify(range)},"entries":[${entries}],"checkpoint":${JSON.stringify(checkpoint)}}`;
}

export function testBody(streamId: string): string {
  const message: Schemas['LogStreamTestMessage'] = { type: 'secadmin.test', stream: streamId };
  return JSON.stringify(message);
}

/** Splunk HEC: one event object per entry (`time`: its timestamp in Unix seconds with milliseconds), concatenated. */
export function splunkRequest(
  token: string,
  destination: { index: string | null; sourcetype: string | null },
  events: { timestamp: string; json: string }[],
): Request {
  const fields = JSON.stringify({
    source: 'secadmin',
    sourcetype: destination.sourcetype ?? 'secadmin:audit',
    ...(destination.index ? { index: destination.index } : {}),
  }).slice(1, -1);
  const body = events
    .map(
      ({ timestamp, json }) => `{"time":${Date.parse(timestamp) / 1000},${fields},"event":${json}}`,
    )
    .join('');
  return {
    headers: { 'content-type': 'application/json', authorization: `Splunk ${token}` },
    body,
  };
}
