import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { AuditTrail } from '../../lib/audit-trail.js';
import { type Cursors, listScope, type Page } from '../../lib/cursor.js';
import { Conflict, Forbidden, invalid, NotFound } from '../../lib/errors.js';
import { idPattern, newId, ulid } from '../../lib/ids.js';
import { isUniqueViolation } from '../../storage/database-errors.js';
import type { Store } from '../../storage/store.js';
import type { SealedEntries } from '../audit-log/api.js';
import type { Access } from '../policies/api.js';
import { type CredentialBox, newWebhookSecret } from './crypto.js';
import {
  bareHost,
  checkedAddresses,
  DestinationRefused,
  type GuardOptions,
  urlProblem,
} from './destination-guard.js';
import { signedWebhook, splunkRequest, testBody } from './messages.js';
import type { StreamFilter, StreamRow } from './model.js';
import type { StreamChange, StreamsRepository } from './repository.js';
import { type SenderOptions, send } from './sender.js';

type Schemas = components['schemas'];

const STREAM_ID = idPattern('lst');
/** How long messages are also signed with the secret a rotation replaced. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface LogStreamsDeps {
  store: Pick<Store, 'transaction'>;
  streams: StreamsRepository;
  sealed: Pick<SealedEntries, 'head' | 'earliest'>;
  audit: AuditTrail<
    'stream.created' | 'stream.updated' | 'stream.deleted' | 'stream.secret_rotated',
    'log_stream'
  >;
  cursors: Pick<Cursors, 'decode' | 'page'>;
  access: Pick<Access, 'permits'>;
  box: CredentialBox;
  sender: SenderOptions;
  /** A stream changed: the deliverer looks again now. */
  kick: () => void;
}

/** The rules of `/v1/log-streams` (docs/log-streams.md). */
export class LogStreamsService {
  constructor(private readonly deps: LogStreamsDeps) {}

  private get guard(): GuardOptions {
    return this.deps.sender;
  }

  /**
   * A stream is an export that never ends: creating one, changing where it sends or what
   * (`destination`, `filter`), replaying it and rotating the secret its messages are signed
   * with also need `logs:export` on `logs`, the right of `POST /v1/logs/export`. Otherwise
   * `streams:update` on one stream would read the whole log: point it at a receiver of one's
   * own and replay from seq 1. Decided before anything is resolved or written.
   */
  private async requireExport(actor: RequestActor): Promise<void> {
    if (!(await this.deps.access.permits(actor, 'logs:export', 'logs')))
      throw new Forbidden(
        "This key may not logs:export on logs, which a stream's destination, filter, replay and secret need.",
      );
  }

  /** A URL a stream may deliver to; a refusal is a 400 naming `destination.url`. */
  private async checkUrl(text: string): Promise<void> {
    const problem = urlProblem(text, this.guard.allowPrivateNetworks);
    if (problem) throw invalid('destination.url', problem);
    try {
      await checkedAddresses(bareHost(new URL(text)), this.guard);
    } catch (error) {
      if (error instanceof DestinationRefused)
        throw invalid('destination.url', `is refused: ${error.message}`);
      throw invalid('destination.url', 'has a host that could not be resolved');
    }
  }

  async head(): Promise<number> {
    return this.deps.sealed.head();
  }

  async create(
    actor: RequestActor,
    body: Schemas['LogStreamCreate'],
  ): Promise<{ row: StreamRow; secret: string | undefined }> {
    const { destination } = body;
    await this.requireExport(actor);
    await this.checkUrl(destination.url);
    const id = newId('lst');
    const secret = destination.type === 'webhook' ? newWebhookSecret() : undefined;
    const credential = this.deps.box.seal(
      id,
      secret ?? (destination.type === 'splunk_hec' ? destination.token : ''),
    );
    const startAt = body.startAt ?? 'now';
    const deliveredThroughSeq =
      startAt === 'now'
        ? await this.deps.sealed.head()
        : startAt === 'earliest'
          ? ((await this.deps.sealed.earliest()) ?? 1) - 1
          : startAt.seq - 1;
    const now = new Date();
    const row = await this.deps.store
      .transaction(async () => {
        const row = await this.deps.streams.insert({
          id,
          name: body.name,
          destinationType: destination.type,
          url: destination.url,
          splunkIndex: destination.type === 'splunk_hec' ? (destination.index ?? null) : null,
          sourcetype:
            destination.type === 'splunk_hec' ? (destination.sourcetype ?? 'secadmin:audit') : null,
          credential,
          filter: (body.filter ?? {}) as StreamFilter,
          status: 'active',
          batchSize: body.batchSize ?? 100,
          deliveredThroughSeq,
          createdAt: now,
          updatedAt: now,
        });
        await this.deps.audit.record(actor, {
          event: 'stream.created',
          target: { id, type: 'log_stream' },
          metadata: { name: body.name, destinationType: destination.type },
        });
        return row;
      })
      .catch((error) => {
        if (isUniqueViolation(error)) throw new Conflict('A log stream with this name exists.');
        throw error;
      });
    this.deps.kick();
    return { row, secret };
  }

  async list(query: { limit: number; cursor?: string }): Promise<Page<StreamRow>> {
    const scope = listScope('log-streams', {});
    const after = this.deps.cursors.decode(scope, STREAM_ID, query.cursor);
    const rows = await this.deps.streams.list(after, query.limit + 1);
    return this.deps.cursors.page(rows, query.limit, scope, (row) => row.createdAt);
  }

  async get(id: string): Promise<StreamRow> {
    const row = await this.deps.streams.find(id);
    if (!row) throw new NotFound('log stream');
    return row;
  }

  async update(
    actor: RequestActor,
    id: string,
    body: Schemas['LogStreamUpdate'],
  ): Promise<StreamRow> {
    if (body.destination || body.filter !== undefined) await this.requireExport(actor);
    // An unknown stream is a 404 before its URL is resolved.
    if (body.destination) {
      await this.get(id);
      await this.checkUrl(body.destination.url);
    }
    const change: StreamChange = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.destination ? { url: body.destination.url } : {}),
      ...(body.filter !== undefined ? { filter: body.filter as StreamFilter } : {}),
      ...(body.batchSize !== undefined ? { batchSize: body.batchSize } : {}),
      ...(body.status !== undefined ? { status: body.status } : {}),
    };
    const row = await this.deps.store
      .transaction(async () => {
        if (!(await this.deps.streams.findForUpdate(id))) throw new NotFound('log stream');
        const row = await this.deps.streams.update(id, change, new Date());
        await this.deps.audit.record(actor, {
          event: 'stream.updated',
          target: { id, type: 'log_stream' },
          metadata: { changed: Object.keys(change).sort() },
        });
        return row;
      })
      .catch((error) => {
        if (isUniqueViolation(error)) throw new Conflict('A log stream with this name exists.');
        throw error;
      });
    this.deps.kick();
    return row;
  }

  async replay(actor: RequestActor, id: string, fromSeq: number): Promise<StreamRow> {
    await this.requireExport(actor);
    const row = await this.deps.store.transaction(async () => {
      if (!(await this.deps.streams.findForUpdate(id))) throw new NotFound('log stream');
      const row = await this.deps.streams.replay(id, fromSeq, new Date());
      await this.deps.audit.record(actor, {
        event: 'stream.updated',
        target: { id, type: 'log_stream' },
        metadata: { replayFromSeq: fromSeq },
      });
      return row;
    });
    this.deps.kick();
    return row;
  }

  async rotateSecret(
    actor: RequestActor,
    id: string,
  ): Promise<{ secret: string; previousSecretExpiresAt: Date }> {
    await this.requireExport(actor);
    return this.deps.store.transaction(async () => {
      const row = await this.deps.streams.findForUpdate(id);
      if (!row) throw new NotFound('log stream');
      if (row.destinationType !== 'webhook')
        throw invalid('id', 'is a Splunk stream: it has a token, not a signing secret');
      const secret = newWebhookSecret();
      const now = new Date();
      const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      await this.deps.streams.rotate(
        id,
        this.deps.box.seal(id, secret),
        row.credential,
        until,
        now,
      );
      await this.deps.audit.record(actor, {
        event: 'stream.secret_rotated',
        target: { id, type: 'log_stream' },
      });
      return { secret, previousSecretExpiresAt: until };
    });
  }

  async delete(actor: RequestActor, id: string): Promise<void> {
    await this.deps.store.transaction(async () => {
      if (!(await this.deps.streams.findForUpdate(id))) throw new NotFound('log stream');
      await this.deps.streams.delete(id);
      await this.deps.audit.record(actor, {
        event: 'stream.deleted',
        target: { id, type: 'log_stream' },
      });
    });
    this.deps.kick();
  }

  async deliveries(id: string) {
    await this.get(id);
    return this.deps.streams.deliveries(id);
  }

  /** One `secadmin.test` message now, whatever the stream's status; changes nothing stored. */
  async test(id: string): Promise<Schemas['LogStreamTestResult']> {
    const row = await this.get(id);
    const body = testBody(id);
    const request =
      row.destinationType === 'webhook'
        ? signedWebhook(`msg_${id}_test_${ulid()}`, body, signingSecrets(row, this.deps.box))
        : splunkRequest(
            this.deps.box.open(id, row.credential),
            { index: row.splunkIndex, sourcetype: row.sourcetype },
            [{ timestamp: new Date().toISOString(), json: body }],
          );
    const outcome = await send(row.url, request.headers, request.body, this.deps.sender);
    return {
      delivered: outcome.ok,
      ...(outcome.httpStatus !== undefined ? { httpStatus: outcome.httpStatus } : {}),
      durationMs: outcome.durationMs,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
  }
}

/** The secrets a webhook message is signed with: the current one, and a rotated-out one for 24 h. */
export function signingSecrets(row: StreamRow, box: CredentialBox, now = Date.now()): string[] {
  const secrets = [box.open(row.id, row.credential)];
  if (
    row.previousCredential &&
    row.previousCredentialExpiresAt &&
    row.previousCredentialExpiresAt.getTime() > now
  )
    secrets.push(box.open(row.id, row.previousCredential));
  return secrets;
}
