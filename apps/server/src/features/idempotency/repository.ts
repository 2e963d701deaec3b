import { arrayLiteral } from '../../storage/array-literal.js';
import type { Connection } from '../../storage/connection.js';

/** A kept response: what a replay sends again. */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface KeptRow {
  fingerprint: string;
  status: number;
  /** The sealed response; null once withdrawn (the API key it showed was revoked). */
  response: Buffer | null;
}

export interface KeptResponse {
  keyId: string;
  /** The calling key's principal, whose bound the response counts against. */
  principal: string;
  idempotencyKey: string;
  fingerprint: string;
  createdAt: Date;
  status: number;
  response: Buffer;
  /** Tags of what the response shows (emails, a created key), to forget it by index. */
  mentions: string[];
}

export class IdempotencyRepository {
  constructor(private readonly c: Connection) {}

  /**
   * Holds the key until the transaction ends; false when another transaction holds it. The
   * claim is a lock, not a row: a crash leaves nothing behind to clean up.
   */
  async lock(keyId: string, idempotencyKey: string): Promise<boolean> {
    const rows = await this.c.sql<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
      [`idempotency\n${keyId}\n${idempotencyKey}`],
    );
    return rows[0]?.locked === true;
  }

  /** The response kept under the key since `since`, if any. */
  async find(keyId: string, idempotencyKey: string, since: Date): Promise<KeptRow | null> {
    // Base64 both ways: the drivers (pg, Prisma) agree on text, not on binary.
    const rows = await this.c.sql<{ fingerprint: string; status: number; response: string | null }>(
      `SELECT fingerprint, status, encode(response, 'base64') AS response FROM idempotency_keys
       WHERE key_id = $1 AND idempotency_key = $2 AND created_at >= $3`,
      [keyId, idempotencyKey, since],
    );
    const row = rows[0];
    if (!row) return null;
    return { ...row, response: row.response === null ? null : Buffer.from(row.response, 'base64') };
  }

  /** Bytes kept for the principal's keys since `since`, and when the oldest of them was kept. */
  async usage(principal: string, since: Date): Promise<{ bytes: number; oldest: Date | null }> {
    const rows = await this.c.sql<{ bytes: number; oldest: Date | null }>(
      `SELECT coalesce(sum(response_bytes), 0)::float8 AS bytes, min(created_at) AS oldest
       FROM idempotency_keys WHERE principal = $1 AND created_at >= $2`,
      [principal, since],
    );
    return rows[0] ?? { bytes: 0, oldest: null };
  }

  /** Keeps the response, replacing an expired one kept under the same key. */
  async keep(kept: KeptResponse): Promise<void> {
    await this.c.sql(
      `INSERT INTO idempotency_keys
         (key_id, idempotency_key, fingerprint, created_at, status, response, response_bytes,
          principal)
       VALUES ($1, $2, $3, $4, $5, decode($6, 'base64'), $7, $8)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at,
             principal = EXCLUDED.principal,
             status = EXCLUDED.status, response = EXCLUDED.response,
             response_bytes = EXCLUDED.response_bytes`,
      [
        kept.keyId,
        kept.idempotencyKey,
        kept.fingerprint,
        kept.createdAt,
        kept.status,
        kept.response.toString('base64'),
        kept.response.byteLength,
        kept.principal,
      ],
    );
    await this.c.sql(
      'DELETE FROM idempotency_mentions WHERE key_id = $1 AND idempotency_key = $2',
      [kept.keyId, kept.idempotencyKey],
    );
    if (kept.mentions.length > 0)
      await this.c.sql(
        `INSERT INTO idempotency_mentions (tag, key_id, idempotency_key)
         SELECT DISTINCT unnest($1::text[]), $2, $3`,
        [arrayLiteral(kept.mentions), kept.keyId, kept.idempotencyKey],
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

  /** Removes everything kept for the API key `keyId` (its mentions go with it). */
  async deleteOfKey(keyId: string): Promise<void> {
    await this.c.sql('DELETE FROM idempotency_keys WHERE key_id = $1', [keyId]);
  }

  /** Forgets every kept response tagged with `mention` (through the tag's index, not a scan). */
  async forgetMentioning(mention: string): Promise<void> {
    await this.c.sql(
      `DELETE FROM idempotency_keys k USING idempotency_mentions m
       WHERE m.tag = $1 AND k.key_id = m.key_id AND k.idempotency_key = m.idempotency_key`,
      [mention],
    );
  }

  /** Drops the sealed responses tagged with `mention`, keeping that their request was done. */
  async withdrawMentioning(mention: string): Promise<void> {
    await this.c.sql(
      `UPDATE idempotency_keys k SET response = NULL, response_bytes = 0
       FROM idempotency_mentions m
       WHERE m.tag = $1 AND k.key_id = m.key_id AND k.idempotency_key = m.idempotency_key`,
      [mention],
    );
  }
}
