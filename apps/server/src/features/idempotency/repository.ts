import type { Connection } from '../../storage/connection.js';

/** A kept response: what a replay sends again. */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface IdempotencyRow {
  fingerprint: string;
  status: number | null;
  body: Record<string, unknown> | null;
  headers: Record<string, string> | null;
}

export interface ClaimRequest {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  claimId: string;
  now: Date;
  /** A key claimed before this is free again, whatever it holds (24 hours). */
  expiredBefore: Date;
  /** A claim without a response from before this is abandoned (its request crashed). */
  abandonedBefore: Date;
}

export class IdempotencyRepository {
  constructor(private readonly c: Connection) {}

  /**
   * Inserts the claim, or takes over an expired key or an abandoned claim of the same request;
   * false when someone else holds the key. One statement: two racing claims cannot both win.
   */
  async claim(r: ClaimRequest): Promise<boolean> {
    const rows = await this.c.sql(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, claim_id, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id,
             created_at = EXCLUDED.created_at, status = NULL, body = NULL, headers = NULL
         WHERE idempotency_keys.created_at < $6
            OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < $7
                AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       RETURNING claim_id`,
      [
        r.keyId,
        r.idempotencyKey,
        r.fingerprint,
        r.claimId,
        r.now,
        r.expiredBefore,
        r.abandonedBefore,
      ],
    );
    return rows.length > 0;
  }

  async find(keyId: string, idempotencyKey: string): Promise<IdempotencyRow | null> {
    const rows = await this.c.sql<IdempotencyRow>(
      `SELECT fingerprint, status, body, headers FROM idempotency_keys
       WHERE key_id = $1 AND idempotency_key = $2`,
      [keyId, idempotencyKey],
    );
    return rows[0] ?? null;
  }

  async keep(keyId: string, idempotencyKey: string, claimId: string, response: StoredResponse) {
    await this.c.sql(
      `UPDATE idempotency_keys SET status = $4, body = $5::jsonb, headers = $6::jsonb
       WHERE key_id = $1 AND idempotency_key = $2 AND claim_id = $3`,
      [
        keyId,
        idempotencyKey,
        claimId,
        response.status,
        JSON.stringify(response.body),
        JSON.stringify(response.headers),
      ],
    );
  }

  async release(keyId: string, idempotencyKey: string, claimId: string): Promise<void> {
    await this.c.sql(
      'DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND claim_id = $3',
      [keyId, idempotencyKey, claimId],
    );
  }

  /** Removes every key claimed before `before`; returns how many. */
  async deleteExpired(before: Date): Promise<number> {
    const rows = await this.c.sql<{ n: number }>(
      'WITH gone AS (DELETE FROM idempotency_keys WHERE created_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [before],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Forgets every kept response that mentions `email` (case-insensitively): a deleted user's
   * address must not outlive it for the 24 hours a response is kept. A retry with such a key
   * is then a new request.
   */
  async forgetResponsesMentioning(email: string): Promise<void> {
    await this.c.sql('DELETE FROM idempotency_keys WHERE strpos(lower(body::text), $1) > 0', [
      email.toLowerCase(),
    ]);
  }
}
