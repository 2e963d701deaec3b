import {
  canonicalForm,
  REDACTION_EVENT,
  type RedactionProof,
  type RedactionRecord,
  redactionsDigest,
  redactionsMetadata,
  redactionsOf,
} from '@secadmin/log-chain';
import { NotFound } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { ChainRepository } from '../chain/repository.js';
import type { EntriesRepository } from '../entries/repository.js';
import { logDetail } from '../representation.js';
import type { RedactionRepository } from './repository.js';

/** What a deletion's `user.deleted` entry must carry: its id and what its metadata names. */
export interface UserRedaction {
  entryId: string;
  /** The entries the redaction altered. */
  entryIds: string[];
  metadata: { redactedEntries: number; redactions: ReturnType<typeof redactionsMetadata> };
}

/** How long a proof waits for its `user.deleted` entry to be sealed (with its checkpoint). */
const SEAL_WAIT_MS = 10_000;

/** Redactions on record: made with the entry that names them, and proven to verifiers. */
export class Redactions {
  constructor(
    private readonly redaction: RedactionRepository,
    private readonly entries: Pick<EntriesRepository, 'findMany'>,
    private readonly chain: Pick<
      ChainRepository,
      'firstCheckpointFrom' | 'checkpointsBetween' | 'links' | 'state'
    >,
    /** Seals a batch of what is queued now (`Sealer.sealNow`). */
    private readonly sealNow: () => Promise<void>,
  ) {}

  /**
   * Redacts a deleted user's email (see `RedactionRepository.redactUser`), in the caller's
   * transaction, which must write the `user.deleted` entry with the id and metadata returned:
   * the records, or above the limit their count and digest.
   */
  async redactUser(userId: string, email: string): Promise<UserRedaction> {
    const entryId = newId('log');
    const records = await this.redaction.redactUser(userId, email, entryId);
    return {
      entryId,
      entryIds: records.map((record) => record.id),
      metadata: { redactedEntries: records.length, redactions: redactionsMetadata(records) },
    };
  }

  /** The records a `user.deleted` entry names, in list order. */
  records(deletionId: string): Promise<RedactionRecord[]> {
    return this.redaction.records(deletionId);
  }

  /**
   * `GET /v1/logs/{id}/redactions`: the records of a service `user.deleted` entry, with their
   * count and digest (404 for any other entry).
   */
  async list(deletionId: string) {
    const [row] = await this.entries.findMany([deletionId]);
    if (!row || row.event !== REDACTION_EVENT || row.origin !== 'service')
      throw new NotFound('user.deleted entry');
    const records = await this.records(deletionId);
    return { id: row.id, count: records.length, sha256: redactionsDigest(records), records };
  }

  /**
   * For the entries `entryIds` (redacted ones), every sealed `user.deleted` entry whose records
   * name one, with the canonical forms of the entries after it up to the next checkpoint
   * (or up to an entry retention removed, which no proof can cross), that checkpoint and,
   * when its metadata holds a summary, its records.
   */
  async proofs(entryIds: readonly string[]): Promise<RedactionProof[]> {
    const naming = await this.redaction.deletionsNaming(entryIds);
    return this.proofsOf([...new Set(naming.map((pair) => pair.deletionId))]);
  }

  /** For each of the entries `entryIds` that one names, the ids of those `user.deleted` entries. */
  async naming(entryIds: readonly string[]): Promise<Map<string, string[]>> {
    const naming = new Map<string, string[]>();
    for (const { entryId, deletionId } of await this.redaction.deletionsNaming(entryIds)) {
      const ids = naming.get(entryId);
      if (ids) ids.push(deletionId);
      else naming.set(entryId, [deletionId]);
    }
    return naming;
  }

  /**
   * The proofs of the `user.deleted` entries `ids`, as `proofs` makes them. One not sealed yet is
   * sealed first; the sealer signs a checkpoint at each deletion it seals. None is signed on
   * request: a sealed deletion no checkpoint covers yet (sealed before that rule, or written
   * into the database by someone else) has a proof that reaches none, which verifiers refuse.
   */
  async proofsOf(ids: readonly string[]): Promise<RedactionProof[]> {
    const rows = ids.length === 0 ? [] : await this.sealedRows(ids);
    const deletions = rows
      .map(logDetail)
      .filter((entry) => entry.seq !== null)
      .sort((a, b) => (a.seq as number) - (b.seq as number));
    const proofs: RedactionProof[] = [];
    for (const entry of deletions) {
      const seq = entry.seq as number;
      const at = await this.chain.firstCheckpointFrom(seq);
      const end = at ?? (await this.chain.state()).head?.seq ?? seq;
      const following: string[] = [];
      if (end > seq)
        for (const link of await this.chain.links(seq + 1, end, end - seq)) {
          if (!link.entry || link.removed) break;
          following.push(canonicalForm(logDetail(link.entry)));
        }
      const [checkpoint] =
        at === undefined
          ? []
          : (await this.chain.checkpointsBetween(at, at)).map((c) => ({
              ...c,
              createdAt: c.createdAt.toISOString(),
            }));
      const held = redactionsOf(entry);
      const records = held && 'summary' in held ? await this.records(entry.id) : undefined;
      proofs.push({
        entry,
        following,
        ...(checkpoint ? { checkpoint } : {}),
        ...(records ? { records } : {}),
      });
    }
    return proofs;
  }

  /** The entries `ids` once each is sealed; as they are after `SEAL_WAIT_MS`. */
  private async sealedRows(ids: readonly string[]) {
    const deadline = Date.now() + SEAL_WAIT_MS;
    for (;;) {
      const rows = await this.entries.findMany([...ids]);
      if (rows.every((row) => row.seq !== null) || Date.now() >= deadline) return rows;
      await this.sealNow();
    }
  }
}
