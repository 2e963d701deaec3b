import type { Logger } from 'pino';
import { type Job, pollLoop } from '../../lib/poll-loop.js';
import type { Trace } from '../../lib/trace.js';
import type { Store } from '../../storage/store.js';
import type { AuditWriter, SealedEntries } from '../audit-log/api.js';
import type { CredentialBox } from './crypto.js';
import {
  type Batch,
  batchMessageId,
  signedWebhook,
  splunkRequest,
  webhookBody,
} from './messages.js';
import type { StreamRow } from './model.js';
import type { AttemptResult, StreamsRepository } from './repository.js';
import { type SenderOptions, type SendOutcome, send } from './sender.js';
import { signingSecrets } from './service.js';

export interface DelivererOptions {
  store: Pick<Store, 'transaction'>;
  streams: StreamsRepository;
  sealed: Pick<SealedEntries, 'head' | 'between' | 'checkpointAtOrBefore'>;
  audit: Pick<AuditWriter, 'recordSystem'>;
  box: CredentialBox;
  sender: SenderOptions;
  /** This instance, as the lease rows name it. */
  owner: string;
  leaseMs: number;
  pollMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  logger: Logger;
  trace?: Trace | undefined;
  counters?:
    | {
        streamDelivery(stream: string, outcome: 'success' | 'failure'): void;
        streamLag(stream: string, entries: number): void;
        streamGone(stream: string): void;
      }
    | undefined;
}

/** After this many failures in a row a stream is `failing`. */
const FAILING_AFTER = 3;
/** A stream failing this long is disabled. */
const DISABLE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
/** `Retry-After` is honoured up to an hour, beyond `retryMaxMs`. */
const RETRY_AFTER_CAP_MS = 60 * 60 * 1000;

/** Base × 2^(attempt − 1), at most `max`, ±20 % jitter. */
export function backoffMs(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random = Math.random,
): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(plain * (0.8 + 0.4 * random()));
}

/**
 * Pushes each leased stream's sealed entries, one request in flight per stream. Progress is
 * written only after a 2xx (and the range is fixed before it is sent), so a crash at any
 * point at most sends the range in flight again, under the same `webhook-id`.
 */
export class StreamDeliverer implements Required<Job> {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Streams this instance's metrics name: the ones it delivers. */
  private readonly metered = new Set<string>();
  private running = false;
  private readonly loop: Required<Job>;

  constructor(private readonly o: DelivererOptions) {
    this.loop = pollLoop({
      name: 'log-stream deliverer',
      everyMs: o.pollMs,
      turn: () => this.turn(),
      logger: o.logger,
    });
  }

  start(): void {
    this.running = true;
    this.o.logger.info({ owner: this.o.owner }, 'log-stream deliverer started');
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop.stop();
    await Promise.allSettled(this.inFlight.values());
    await this.o.streams.release(this.o.owner).catch(() => undefined);
  }

  private async turn(): Promise<void> {
    const ids = await this.o.streams.lease(this.o.owner, this.o.leaseMs);
    this.dropSeriesOfStreamsNotDelivered(new Set(ids));
    for (const id of ids) {
      if (this.inFlight.has(id)) continue;
      const task = this.deliver(id)
        .catch((error) =>
          this.o.logger.error({ err: error, stream: id }, 'log-stream delivery failed'),
        )
        .finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, task);
    }
  }

  /**
   * Deleted, paused, disabled or moved to another instance: its series go once no turn of this
   * instance is in flight for it (a turn in flight could set them again after a delete).
   */
  private dropSeriesOfStreamsNotDelivered(leased: Set<string>): void {
    for (const id of this.metered) {
      if (leased.has(id) || this.inFlight.has(id)) continue;
      this.o.counters?.streamGone(id);
      this.metered.delete(id);
    }
  }

  /** Sends batches of one stream until it has nothing to send, must wait, or is no longer ours. */
  private async deliver(id: string): Promise<void> {
    while (this.running) {
      const stream = await this.o.streams.leased(id, this.o.owner);
      if (!stream) return;
      if (stream.nextAttemptAt && stream.nextAttemptAt.getTime() > Date.now()) return;
      const head = await this.o.sealed.head();
      this.metered.add(id);
      this.o.counters?.streamLag(id, Math.max(0, head - stream.deliveredThroughSeq));
      const batch = await this.nextBatch(stream, head);
      if (batch === 'moved') continue;
      if (batch === undefined) return;
      if (batch.entries.length === 0) {
        // A stretch with no matching entry: covered by the next message's range.
        await this.o.streams.advance(stream, this.o.owner, batch.toSeq, undefined, new Date());
        continue;
      }
      const send = () => this.post(stream, batch);
      const outcome = await (this.o.trace
        ? this.o.trace(
            'log stream delivery',
            { 'secadmin.stream.id': id, 'secadmin.stream.entries': batch.entries.length },
            send,
          )
        : send());
      const attempt: AttemptResult = {
        fromSeq: batch.fromSeq,
        toSeq: batch.toSeq,
        entries: batch.entries.length,
        httpStatus: outcome.httpStatus,
        durationMs: outcome.durationMs,
        error: outcome.error,
      };
      this.o.counters?.streamDelivery(id, outcome.ok ? 'success' : 'failure');
      if (outcome.ok) {
        await this.o.streams.advance(stream, this.o.owner, batch.toSeq, attempt, new Date());
        this.o.counters?.streamLag(id, Math.max(0, head - batch.toSeq));
        continue;
      }
      await this.fail(stream, attempt, outcome);
      return;
    }
  }

  /** The range in flight again, or the next one; `moved`: a replay or another instance intervened. */
  private async nextBatch(stream: StreamRow, head: number): Promise<Batch | 'moved' | undefined> {
    // Entries are read after what is delivered; the message's range starts after the last
    // message, so a stretch with no matching entry is covered by the next message's range.
    const scanFrom = stream.deliveredThroughSeq + 1;
    const fromSeq = Math.min(stream.rangeStartSeq, scanFrom);
    const held =
      stream.pendingToSeq !== null && stream.pendingToSeq >= scanFrom
        ? stream.pendingToSeq
        : undefined;
    const upTo = held ?? head;
    if (scanFrom > upTo) return undefined;
    const { entries, scannedTo } = await this.o.sealed.between(
      scanFrom,
      upTo,
      stream.filter,
      stream.batchSize,
    );
    const last = entries[entries.length - 1];
    const toSeq = entries.length === stream.batchSize && last?.seq ? last.seq : scannedTo;
    if (
      entries.length > 0 &&
      toSeq !== held &&
      !(await this.o.streams.holdRange(stream, this.o.owner, toSeq))
    )
      return 'moved';
    const checkpoint =
      entries.length > 0 ? await this.o.sealed.checkpointAtOrBefore(toSeq) : undefined;
    return { fromSeq, toSeq, entries, checkpoint };
  }

  private async post(stream: StreamRow, batch: Batch): Promise<SendOutcome> {
    const request =
      stream.destinationType === 'webhook'
        ? signedWebhook(
            batchMessageId(stream.id, batch),
            webhookBody(stream.id, batch),
            signingSecrets(stream, this.o.box),
          )
        : splunkRequest(
            this.o.box.open(stream.id, stream.credential),
            { index: stream.splunkIndex, sourcetype: stream.sourcetype },
            batch.entries,
          );
    return send(stream.url, request.headers, request.body, this.o.sender);
  }

  private async fail(
    stream: StreamRow,
    attempt: AttemptResult,
    outcome: SendOutcome,
  ): Promise<void> {
    const now = new Date();
    const failures = stream.consecutiveFailures + 1;
    const failingSince = stream.failingSince ?? now;
    const gone = stream.destinationType === 'webhook' && outcome.httpStatus === 410;
    const tooLong = now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
    const status =
      gone || tooLong ? 'disabled' : failures >= FAILING_AFTER ? 'failing' : stream.status;
    const waitMs =
      outcome.retryAfterSeconds !== undefined
        ? Math.min(outcome.retryAfterSeconds * 1000, RETRY_AFTER_CAP_MS)
        : backoffMs(stream.attempt + 1, this.o.retryBaseMs, this.o.retryMaxMs);
    const error = {
      at: now.toISOString(),
      ...(outcome.httpStatus !== undefined ? { httpStatus: outcome.httpStatus } : {}),
      message: outcome.error ?? 'delivery failed',
    };
    await this.o.store.transaction(async () => {
      const written = await this.o.streams.failed(
        stream,
        this.o.owner,
        attempt,
        {
          status,
          error,
          nextAttemptAt: new Date(now.getTime() + waitMs),
        },
        now,
      );
      if (written && status === 'disabled')
        await this.o.audit.recordSystem({
          event: 'stream.disabled',
          target: { type: 'log_stream', id: stream.id },
          metadata: { reason: gone ? 'the receiver answered 410' : 'failing for 7 days' },
        });
    });
    // Woken in time for the retry: the poll loop would also find it, a turn later at most.
    if (status !== 'disabled' && this.running) {
      const timer = setTimeout(() => this.kick(), waitMs + 5);
      timer.unref();
    }
  }
}
