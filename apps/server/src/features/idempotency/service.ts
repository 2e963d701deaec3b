import { canonicalJson } from '../../lib/canonical-json.js';
import { Conflict, IdempotencyKeyReused, Throttled } from '../../lib/errors.js';
import type { Store } from '../../storage/store.js';
import { IdempotencyDigests, seal, unseal } from './crypto.js';
import type { IdempotencyRepository, StoredResponse } from './repository.js';

export type { StoredResponse } from './repository.js';

/** How long a response is kept (docs/idempotency.md). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** The default bound on the bytes kept for one principal's API keys over the 24 hours. */
export const DEFAULT_MAX_KEPT_BYTES = 64 * 1024 * 1024;

/** One request's idempotency key: which API key sent it, the key, and what was sent. */
export interface IdempotentRequest {
  keyId: string;
  /** The calling key's principal: its keys share one bound on kept bytes. */
  principal: string;
  /** The calling API key's secret: the sealed response opens only with it. */
  callerSecret: string;
  idempotencyKey: string;
  /** `fingerprint` of the request as sent. */
  fingerprint: string;
}

/** What the work answered: a status of 400 or more undoes its writes (a 4xx is still kept). */
export interface WorkOutcome {
  response: StoredResponse | undefined;
}

export type RunOutcome = { kind: 'done' } | { kind: 'replay'; response: StoredResponse };

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Every string of a JSON value that is an email address, lowercased. */
function emailsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    if (EMAIL.test(value)) found.add(value.toLowerCase());
  } else if (Array.isArray(value)) for (const item of value) emailsIn(item, found);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) emailsIn(item, found);
  return found;
}

/** The id of the API key whose secret the response shows, if it shows one. */
function shownKeyId(body: Record<string, unknown>): string | undefined {
  const data = body.data as { id?: unknown; secret?: unknown } | undefined;
  return typeof data?.secret === 'string' && typeof data.id === 'string' ? data.id : undefined;
}

const inProgress = () =>
  new Conflict('A request with this Idempotency-Key is still being processed; try again later.');
const withdrawn = () =>
  new Conflict(
    'The request with this Idempotency-Key was done, but the API key it created has been revoked since: its secret is not shown again.',
  );
const reused = () =>
  new IdempotencyKeyReused('This Idempotency-Key was used with a different request.');

/** Thrown inside the work's savepoint to undo its writes while its answer is still kept. */
class UndoWork extends Error {}

export class IdempotencyService {
  private readonly digests: IdempotencyDigests;

  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly kept: Pick<
      IdempotencyRepository,
      | 'lock'
      | 'find'
      | 'usage'
      | 'keep'
      | 'deleteExpired'
      | 'forgetMentioning'
      | 'withdrawMentioning'
      | 'deleteOfKey'
    >,
    serverSecret: string,
    private readonly maxKeptBytes = DEFAULT_MAX_KEPT_BYTES,
  ) {
    this.digests = new IdempotencyDigests(serverSecret);
  }

  /**
   * HMAC of the operation (method and path) and the canonical form of the parsed JSON body:
   * key order and whitespace do not make two requests different; the same key on another path
   * does; and without the server secret nothing about the body can be tested against it.
   */
  fingerprint(method: string, path: string, body: unknown): Promise<string> {
    return this.digests.fingerprint(method, path, body === undefined ? [] : canonicalJson(body));
  }

  /**
   * Runs `work` once for the key: the key's lock, the work's writes and the kept response
   * commit in one transaction, so a crash at any point leaves either nothing (a retry does the
   * work) or all of it (a retry replays). A response with status 400 or more is kept but the
   * work's writes are undone; one of 500 or more is not kept. The same key with another request
   * → `IdempotencyKeyReused`; while another request holds it → `Conflict`; past the principal's
   * bound on kept bytes → `Throttled`.
   */
  run(request: IdempotentRequest, work: () => Promise<WorkOutcome>, now = new Date()) {
    const { fingerprint } = request;
    const context = {
      callerSecret: request.callerSecret,
      keyId: request.keyId,
      idempotencyKey: request.idempotencyKey,
    };
    const since = new Date(now.getTime() - RETENTION_MS);
    const idempotency = this.kept;
    return this.store.transaction(async (): Promise<RunOutcome> => {
      if (!(await idempotency.lock(request.keyId, request.idempotencyKey))) throw inProgress();
      const kept = await idempotency.find(request.keyId, request.idempotencyKey, since);
      if (kept) {
        if (kept.fingerprint !== fingerprint) throw reused();
        if (kept.response === null) throw withdrawn();
        return { kind: 'replay', response: unseal(kept.response, context) as StoredResponse };
      }
      const usage = await idempotency.usage(request.principal, since);
      if (usage.bytes >= this.maxKeptBytes) {
        const frees = (usage.oldest?.getTime() ?? now.getTime()) + RETENTION_MS - now.getTime();
        throw new Throttled(
          'The API keys of this principal have reached their bound on responses kept for Idempotency-Key replays; retry later, or without an Idempotency-Key.',
          Math.max(1, Math.ceil(frees / 1000)),
        );
      }
      let outcome: WorkOutcome = { response: undefined };
      try {
        await this.store.transaction(async () => {
          outcome = await work();
          if ((outcome.response?.status ?? 500) >= 400) throw new UndoWork();
        });
      } catch (error) {
        if (!(error instanceof UndoWork)) throw error;
      }
      const { response } = outcome;
      if (response && response.status < 500)
        await idempotency.keep({
          keyId: request.keyId,
          principal: request.principal,
          idempotencyKey: request.idempotencyKey,
          fingerprint,
          createdAt: now,
          status: response.status,
          response: seal(response, context),
          mentions: this.mentionsOf(response.body),
        });
      return { kind: 'done' };
    });
  }

  private mentionsOf(body: Record<string, unknown>): string[] {
    const mentions = [...emailsIn(body)].map((email) => this.digests.mention('email', email));
    const keyId = shownKeyId(body);
    if (keyId !== undefined) mentions.push(this.digests.mention('api-key', keyId));
    return mentions;
  }

  /**
   * Forgets the kept responses that show `email`: a retry of one is then a new request. In the
   * caller's transaction.
   */
  forgetResponsesMentioning(email: string): Promise<void> {
    return this.kept.forgetMentioning(this.digests.mention('email', email.toLowerCase()));
  }

  /**
   * A key was revoked. Its secret is never shown again: a replay of its creation is a 409.
   * What the key kept itself goes: it can never replay it (its requests are 401s), and those
   * bytes must not hold its principal's other keys against their bound. In the caller's
   * transaction.
   */
  async forgetKey(keyId: string): Promise<void> {
    await this.kept.withdrawMentioning(this.digests.mention('api-key', keyId));
    await this.kept.deleteOfKey(keyId);
  }

  /** Deletes the keys past their 24 hours. */
  sweep(now = new Date()): Promise<number> {
    return this.kept.deleteExpired(new Date(now.getTime() - RETENTION_MS));
  }
}
