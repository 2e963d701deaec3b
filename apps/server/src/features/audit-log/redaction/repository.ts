import { Prisma } from '@secadmin/db';
import { REDACTED, type RedactionRecord } from '@secadmin/log-chain';
import type { Connection } from '../../../storage/connection.js';

/** The records of a redaction in list order: by seq (entries not sealed yet last), then id. */
function inListOrder(records: RedactionRecord[]): RedactionRecord[] {
  return records.sort(
    (a, b) =>
      (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** Removes a deleted user's email address from the entries linked to the user, on record. */
export class RedactionRepository {
  constructor(private readonly c: Connection) {}

  /**
   * The audit trail outlives the account, but not its email address. Only the entries
   * linked to the user are touched: those it acted in (`actor.id`; the actor's email is
   * removed, shown as `null`) and those about it (`target` = the user). In them a target
   * id that is the email is removed, and each top-level metadata value that mentions it
   * becomes "[redacted]". Each removed value loses its salt and keeps its digest, so the
   * hash chain still verifies and the value cannot be confirmed by guessing. Entries not
   * linked to the user are never altered, whatever they mention. The generated `search`
   * column follows.
   *
   * Returns a record per altered entry (its id, its seq or null when not sealed yet, the
   * fields removed), in list order, and stores them under `deletionId`, the id of the
   * `user.deleted` entry that must name them, written in the same transaction.
   */
  async redactUser(userId: string, email: string, deletionId: string): Promise<RedactionRecord[]> {
    const lower = email.toLowerCase();
    const ownEmail = Prisma.sql`(actor_id = ${userId} AND actor_email IS NOT NULL)`;
    const emailAsTarget = Prisma.sql`lower(target_id) = ${lower}`;
    const mentions = Prisma.sql`strpos(lower(value::text), ${lower}) > 0`;
    const emailInMetadata = Prisma.sql`strpos(lower(metadata::text), ${lower}) > 0`;
    const sql = Prisma.sql`
      WITH targets AS (
        SELECT id, "timestamp", ARRAY(
            SELECT 'actor.email' WHERE ${ownEmail}
            UNION ALL SELECT 'target.id' WHERE ${emailAsTarget}
            UNION ALL SELECT 'metadata.' || key FROM jsonb_each(metadata) WHERE ${mentions}
          ) AS fields
        FROM log_entries
        WHERE (actor_id = ${userId} OR (target_type = 'user' AND target_id = ${userId}))
          AND (${ownEmail} OR ${emailAsTarget} OR ${emailInMetadata})),
      altered AS (
        UPDATE log_entries
        SET actor_email = CASE WHEN ${ownEmail} THEN NULL ELSE actor_email END,
            actor_email_redacted = actor_email_redacted OR ${ownEmail},
            target_id = CASE WHEN ${emailAsTarget} THEN NULL ELSE target_id END,
            metadata = CASE WHEN ${emailInMetadata}
              THEN (SELECT jsonb_object_agg(key,
                      CASE WHEN ${mentions} THEN to_jsonb(${REDACTED}::text) ELSE value END)
                    FROM jsonb_each(metadata))
              ELSE metadata END,
            salts = coalesce(salts, '{}'::jsonb) - targets.fields
        FROM targets
        WHERE log_entries.id = targets.id AND log_entries."timestamp" = targets."timestamp"
        RETURNING log_entries.id, targets.fields)
      SELECT altered.id, log_chain.seq::float8 AS seq, altered.fields
      FROM altered LEFT JOIN log_chain ON log_chain.entry_id = altered.id`;
    const rows = await this.c.sql<{ id: string; seq: number | null; fields: string[] }>(
      sql.text,
      sql.values,
    );
    const records = inListOrder(
      rows.map((row) => ({ id: row.id, seq: row.seq, fields: [...row.fields].sort() })),
    );
    if (records.length > 0)
      await this.c.sql(
        `INSERT INTO log_redactions (deletion_id, position, entry_id, seq, fields)
         SELECT $1, (r.n - 1)::int, r.value->>'id', (r.value->>'seq')::bigint,
           ARRAY(SELECT jsonb_array_elements_text(r.value->'fields'))
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(value, n)`,
        [deletionId, JSON.stringify(records)],
      );
    return records;
  }

  /** The records a `user.deleted` entry names, in list order (none for any other id). */
  async records(deletionId: string): Promise<RedactionRecord[]> {
    return this.c.sql<RedactionRecord>(
      `SELECT entry_id AS id, seq::float8 AS seq, fields FROM log_redactions
       WHERE deletion_id = $1 ORDER BY position`,
      [deletionId],
    );
  }

  /** The ids of the `user.deleted` entries whose records name any of `entryIds`. */
  async deletionsNaming(
    entryIds: readonly string[],
  ): Promise<{ entryId: string; deletionId: string }[]> {
    if (entryIds.length === 0) return [];
    const rows = await this.c.sql<{ entry_id: string; deletion_id: string }>(
      `SELECT DISTINCT entry_id, deletion_id FROM log_redactions WHERE entry_id = ANY($1::text[])
       ORDER BY entry_id, deletion_id`,
      [entryIds],
    );
    return rows.map((row) => ({ entryId: row.entry_id, deletionId: row.deletion_id }));
  }
}
