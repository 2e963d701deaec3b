import type { RequestActor } from '../../lib/actor.js';
import type { AuditWriter } from './audit-writer.js';

export type { AuditRecord, AuditWriter, SystemRecord } from './audit-writer.js';
export type { SealedEntries, SealedEntry, SealedEntryFilter } from './streams/source.js';

/** What other features may call; each call joins the transaction open in the caller's call chain. */
export interface AuditLogApi extends AuditWriter {
  /**
   * Removes a deleted user's email address from the entries linked to the user (see
   * redaction/repository.ts) and writes the `user.deleted` entry, whose
   * `metadata.redactions` names what it altered.
   */
  recordUserDeletion(actor: RequestActor, userId: string, email: string): Promise<void>;
  /**
   * Resolves once the analytics store holds every redaction committed so far: after a user's
   * deletion commits, and before it is answered, no search finds what was redacted.
   */
  redactionsApplied(): Promise<void>;
}
