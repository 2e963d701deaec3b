import { createHash } from 'node:crypto';
import { Conflict, IdempotencyKeyReused } from '../../lib/errors.js';
import { ulid } from '../../lib/ids.js';
import type { Store } from '../../storage/repositories.js';
import type { StoredResponse } from './repository.js';

export type { StoredResponse } from './repository.js';

/** How long a response is kept (docs/idempotency.md). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim this old without a response belongs to a request that crashed: it can be retaken. */
export const ABANDONED_AFTER_MS = 2 * 60 * 1000;

/** One request's idempotency key: which API key sent it, the key, and what was sent. */
export interface IdempotentRequest {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
}

/** The first request holds the claim and processes; a repeat gets the kept response. */
export type ClaimOutcome =
  | { kind: 'claimed'; claimId: string }
  | { kind: 'replay'; response: StoredResponse };

/** JSON with object keys sorted and no whitespace: the same value always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 of the operation (method and path) and the canonical form of the parsed JSON body:
 * key order and whitespace do not make two requests different; the same key on another path does.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${body === undefined ? '' : canonicalJson(body)}`)
    .digest('hex');
}

const inProgress = () =>
  new Conflict('A request with this Idempotency-Key is still being processed; try again later.');
const reused = () =>
  new IdempotencyKeyReused('This Idempotency-Key was used with a different request.');

export class IdempotencyService {
  constructor(private readonly store: Store) {}

  /**
   * Claims the key for this request, or returns the response kept for it. A different request
   * under the same key → `IdempotencyKeyReused`; the same one still in progress → `Conflict`.
   */
  async claim(request: IdempotentRequest, now = new Date()): Promise<ClaimOutcome> {
    const { keyId, idempotencyKey, fingerprint } = request;
    // The row can vanish between the claim and the read (released, swept): then claim again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimId = ulid();
      const claimed = await this.store.idempotency.claim({
        keyId,
        idempotencyKey,
        fingerprint,
        claimId,
        now,
        expiredBefore: new Date(now.getTime() - RETENTION_MS),
        abandonedBefore: new Date(now.getTime() - ABANDONED_AFTER_MS),
      });
      if (claimed) return { kind: 'claimed', claimId };
      const row = await this.store.idempotency.find(keyId, idempotencyKey);
      if (!row) continue;
      if (row.fingerprint !== fingerprint) throw reused();
      if (row.status === null) throw inProgress();
      return {
        kind: 'replay',
        response: { status: row.status, body: row.body ?? {}, headers: row.headers ?? {} },
      };
    }
    throw inProgress();
  }

  /** Keeps the response of a claimed request for replays. */
  keep(request: IdempotentRequest, claimId: string, response: StoredResponse): Promise<void> {
    return this.store.idempotency.keep(request.keyId, request.idempotencyKey, claimId, response);
  }

  /** Gives the key up: a retry is processed again (after a 5xx). */
  release(request: IdempotentRequest, claimId: string): Promise<void> {
    return this.store.idempotency.release(request.keyId, request.idempotencyKey, claimId);
  }

  /** Deletes the keys past their 24 hours. */
  sweep(now = new Date()): Promise<number> {
    return this.store.idempotency.deleteExpired(new Date(now.getTime() - RETENTION_MS));
  }
}
