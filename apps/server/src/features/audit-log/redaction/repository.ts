import { Prisma } from '@secadmin/db';
import { REDACTED } from '@secadmin/log-chain';
import type { Connection } from '../../../storage/connection.js';

/** Removes a deleted user's email address from the entries linked to the user. */
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
   * column follows. Returns how many entries were altered.
   */
  async redactUser(userId: string, email: string): Promise<number> {
    const lower = email.toLowerCase();
    const ownEmail = Prisma.sql`(actor_id = ${userId} AND actor_email IS NOT NULL)`;
    const emailAsTarget = Prisma.sql`lower(target_id) = ${lower}`;
    const mentions = Prisma.sql`strpos(lower(value::text), ${lower}) > 0`;
    const emailInMetadata = Prisma.sql`strpos(lower(metadata::text), ${lower}) > 0`;
    const sql = Prisma.sql`
      WITH altered AS (
        UPDATE log_entries
        SET actor_email = CASE WHEN ${ownEmail} THEN NULL ELSE actor_email END,
            actor_email_redacted = actor_email_redacted OR ${ownEmail},
            target_id = CASE WHEN ${emailAsTarget} THEN NULL ELSE target_id END,
            metadata = CASE WHEN ${emailInMetadata}
              THEN (SELECT jsonb_object_agg(key,
                      CASE WHEN ${mentions} THEN to_jsonb(${REDACTED}::text) ELSE value END)
                    FROM jsonb_each(metadata))
              ELSE metadata END,
            salts = coalesce(salts, '{}'::jsonb) - ARRAY(
              SELECT 'actor.email' WHERE ${ownEmail}
              UNION ALL SELECT 'target.id' WHERE ${emailAsTarget}
              UNION ALL SELECT 'metadata.' || key FROM jsonb_each(metadata) WHERE ${mentions})
        WHERE (actor_id = ${userId} OR (target_type = 'user' AND target_id = ${userId}))
          AND (${ownEmail} OR ${emailAsTarget} OR ${emailInMetadata})
        RETURNING 1)
      SELECT count(*)::int AS n FROM altered`;
    const [result] = await this.c.sql<{ n: number }>(sql.text, sql.values);
    return result?.n ?? 0;
  }
}
