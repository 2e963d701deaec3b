import {
  type ChainEntry,
  type Checkpoint,
  truncatedAfter,
  type VerifierItem,
  type VerifyResult,
} from '@secadmin/log-chain';
import { ConcurrencyGate } from '../../../lib/concurrency-gate.js';
import { type Cursors, listScope, type Page } from '../../../lib/cursor.js';
import { Forbidden, invalid } from '../../../lib/errors.js';
import { Pacer } from '../../../lib/pacer.js';
import { ReadBatches } from '../../../lib/read-batches.js';
import { entryReadBytes, LARGEST_ENTRY_BYTES } from '../entries/read-weight.js';
import type { LogRow } from '../entries/sql.js';
import type { Redactions } from '../redaction/service.js';
import { logDetail } from '../representation.js';
import type { CheckpointRow } from './model.js';
import type { ChainRepository } from './repository.js';
import type { SigningKey } from './signing-key.js';
import { keyRecord } from './signing-keys.js';
import type { SigningKeysRepository } from './signing-keys-repository.js';
import { WorkerChainVerifier } from './worker-verifier.js';

const SEQ_ID = /^[1-9][0-9]{0,15}$/;
/** The most seqs `GET /v1/logs/chain` answers for at once. */
const RUN_SEQS = 100;
/**
 * Walks checked at once per instance, each on a thread of its own (a core's worth of hashing);
 * more wait their turn, however long.
 */
const CONCURRENT_WALKS = 2;

export interface PublicKeys {
  algorithm: 'Ed25519';
  publicKey: string;
  fingerprint: string;
  keys: (ReturnType<typeof keyRecord> & { algorithm: 'Ed25519' })[];
}

export interface VerifyRange {
  fromSeq?: number | undefined;
  toSeq?: number | undefined;
}

/** Checkpoints, the public key, and verification of the chain as stored. */
export class ChainService {
  private readonly walks = new ConcurrencyGate({
    concurrent: CONCURRENT_WALKS,
    queued: Number.POSITIVE_INFINITY,
    message: 'unused: a verification waits for its turn',
    retryAfterSeconds: 0,
  });

  constructor(
    private readonly chain: Pick<
      ChainRepository,
      'checkpoints' | 'state' | 'firstCheckpointFrom' | 'checkpointsBetween' | 'links' | 'removals'
    >,
    private readonly signingKeys: Pick<SigningKeysRepository, 'all'>,
    private readonly cursors: Cursors,
    private readonly key: Pick<SigningKey, 'publicKeyPem' | 'fingerprint'>,
    private readonly redactions: Pick<Redactions, 'proofs'>,
  ) {}

  /** This instance's (the active) key, and every key that signed, with its range and rotation. */
  async publicKey(): Promise<PublicKeys> {
    const keys = (await this.signingKeys.all()).map(keyRecord);
    return {
      algorithm: 'Ed25519',
      publicKey: this.key.publicKeyPem,
      fingerprint: this.key.fingerprint,
      keys: keys.map((key) => ({ algorithm: 'Ed25519', ...key })),
    };
  }

  async checkpoints(limit: number, cursor: string | undefined): Promise<Page<CheckpointRow>> {
    const scope = listScope('checkpoints', {});
    const after = this.cursors.decode(scope, SEQ_ID, cursor);
    const rows = await this.chain.checkpoints(after && Number(after.id), limit + 1);
    return this.cursors.page(
      rows.map((row) => ({ ...row, id: String(row.seq) })),
      limit,
      scope,
      (row) => row.createdAt,
    );
  }

  /**
   * The entries of a run of at most RUN_SEQS seqs, in seq order: a seq whose entry retention
   * removed, or that is not sealed yet, has none. 403 unless the caller may read every one.
   */
  async run(
    fromSeq: number,
    toSeq: number,
    mayRead: (entryId: string) => Promise<boolean>,
  ): Promise<LogRow[]> {
    if (toSeq < fromSeq) throw invalid('toSeq', 'must not be below fromSeq');
    if (toSeq - fromSeq >= RUN_SEQS)
      throw invalid('toSeq', `must be at most ${RUN_SEQS - 1} after fromSeq`);
    const links = await this.chain.links(fromSeq, toSeq, RUN_SEQS);
    const entries = links.flatMap((link) => (link.entry && !link.removed ? [link.entry] : []));
    for (const entry of entries)
      if (!(await mayRead(entry.id)))
        throw new Forbidden('This key may not logs:read every entry of this run.');
    return entries;
  }

  /**
   * Walks the chain in seq order, in reads of bounded size (memory holds the read being checked,
   * the next one and the range's checkpoints), with the same checks an offline verifier makes,
   * run on a worker thread so that other requests keep their latency. A committed field an entry
   * no longer holds must be named by the records of a `user.deleted` entry, walked or proven to a
   * checkpoint. A chain row whose entry retention removed links the chain by its stored hash; one
   * whose entry row is otherwise gone is left out, so the verifier reports its seq as missing.
   */
  async verify({ fromSeq = 1, toSeq }: VerifyRange): Promise<VerifyResult> {
    if (toSeq !== undefined && toSeq < fromSeq) throw invalid('toSeq', 'must not be below fromSeq');
    return this.walks.run(() => this.walk(fromSeq, toSeq));
  }

  /**
   * A range is walked on to the first checkpoint at or after its end, so that a signature
   * vouches for all of it; the entries after the newest checkpoint are counted as uncovered.
   */
  private async walk(fromSeq: number, toSeq: number | undefined): Promise<VerifyResult> {
    const head = (await this.chain.state()).head?.seq ?? 0;
    if (fromSeq > Math.max(head, 1)) return pastTheHead(fromSeq, head);
    const end = Math.min(toSeq ?? head, head);
    const last = (await this.chain.firstCheckpointFrom(end)) ?? end;
    const keys = (await this.signingKeys.all()).map(keyRecord);
    const checkpoints = (await this.chain.checkpointsBetween(fromSeq - 1, last)).map(
      ({ createdAt: _, ...checkpoint }) => checkpoint,
    );
    let verifier: WorkerChainVerifier;
    try {
      verifier = await WorkerChainVerifier.create({
        checkpoints,
        publicKeyPem: this.key.publicKeyPem,
        ...(keys.length > 0 ? { publicKeys: keys } : {}),
        expectedKey: this.key.fingerprint,
      });
    } catch (error) {
      return {
        valid: false,
        checkedEntries: 0,
        lastCheckpointSeq: null,
        reason: (error as Error).message,
      };
    }
    try {
      const walked = await this.feed(verifier, fromSeq, last);
      const unaccounted = await verifier.unaccounted();
      if (unaccounted.length > 0) {
        await verifier.addRedactions(await this.redactions.proofs(unaccounted));
      }
      const result = await verifier.finish();
      if (!result.valid) return result;
      const uncoveredEntries = Math.max(
        0,
        end - Math.max(result.lastCheckpointSeq ?? 0, fromSeq - 1),
      );
      return this.accountForRemovals(cutOff({ ...result, uncoveredEntries }, walked, checkpoints));
    } finally {
      await verifier.close();
    }
  }

  /**
   * Reads the links `fromSeq..last` and hands them to the verifier, reading the next batch while
   * it checks one; stops after a batch it found invalid. The last seq read.
   */
  private async feed(
    verifier: WorkerChainVerifier,
    fromSeq: number,
    last: number,
  ): Promise<number> {
    let walked = fromSeq - 1;
    const batches = new ReadBatches<ChainEntry>(
      (entry) => entryReadBytes(entry.metadata, entry.context?.userAgent),
      LARGEST_ENTRY_BYTES,
    );
    const pacer = new Pacer();
    let checked = Promise.resolve(true);
    while (walked < last) {
      const links = await this.chain.links(walked + 1, last, batches.size);
      if (links.length === 0 || !(await checked)) break;
      const items: VerifierItem[] = [];
      const entries: ChainEntry[] = [];
      for (const link of links) {
        if (link.entry) {
          const entry = logDetail(link.entry);
          entries.push(entry);
          items.push({ entry });
        } else if (link.removed)
          items.push({ removed: { seq: link.seq, hash: link.hash, prevHash: link.prevHash } });
        await pacer.pace();
      }
      checked = verifier.add(items);
      batches.observe(entries);
      walked = links[links.length - 1]?.seq ?? last;
    }
    await checked;
    return walked;
  }
  /**
   * Marked chain rows must be exactly the entries that retention's records say it removed:
   * a database writer who deletes an entry and marks its row removed is found here, unless
   * it also forges a retention record (which the chain then holds in plain sight).
   */
  private async accountForRemovals(result: VerifyResult): Promise<VerifyResult> {
    const { marked, recorded } = await this.chain.removals();
    if (marked === recorded) return result;
    return {
      ...result,
      valid: false,
      reason: `${marked} chain rows are marked removed, but logs.retention.applied entries account for ${recorded}`,
    };
  }
}

/** A range that starts after the newest sealed entry holds nothing to vouch for: not valid. */
function pastTheHead(fromSeq: number, head: number): VerifyResult {
  return {
    valid: false,
    checkedEntries: 0,
    lastCheckpointSeq: null,
    reason: `seq ${fromSeq} is past the head of the chain (seq ${head}): nothing was verified`,
  };
}

/**
 * A chain whose newest rows were deleted ends before a checkpoint that was signed over them:
 * the first missing seq is named (those checkpoints' signatures were checked by `finish`).
 */
function cutOff(
  result: VerifyResult,
  lastSeq: number,
  checkpoints: readonly Checkpoint[],
): VerifyResult {
  const missing = truncatedAfter(lastSeq, checkpoints);
  if (missing === 0) return result;
  return {
    ...result,
    valid: false,
    firstInvalidSeq: lastSeq + 1,
    reason: `seq ${lastSeq + 1} is missing: checkpoint ${lastSeq + missing} is signed, but the chain ends at seq ${lastSeq}`,
  };
}
