import {
  type Data,
  type LogEntry,
  SecadminApiError,
  type SecadminClient,
} from '@secadmin/api-client';
import {
  type ChainEntry,
  ChainVerifier,
  entryHash,
  entryProblem,
  importPublicKey,
  verifyCheckpointSignature,
} from '@secadmin/log-chain';
import { utc } from '../../lib/time.js';

type Checkpoint = Data<'listCheckpoints'>[number];

/**
 * One step of an entry's proof: what was checked, where, and how it came out (`unchecked`:
 * this browser could not check it, which proves nothing either way; `pending`: it cannot be
 * checked yet, as no checkpoint covers the entry so far).
 */
export interface ProofStep {
  label: string;
  outcome: 'passed' | 'failed' | 'unchecked' | 'pending';
  detail: string;
}

/**
 * `invalid` only when a step failed; `pending`: nothing failed, and the entry waits for a
 * checkpoint (the drawer checks again by itself); `incomplete`: nothing failed, but a step
 * could not be checked here.
 */
export type Verdict = 'valid' | 'invalid' | 'pending' | 'incomplete';

export type Proof =
  | { state: 'unsealed' }
  | { state: 'checked'; verdict: Verdict; steps: ProofStep[]; fingerprint?: string };

const outcome = (ok: boolean): ProofStep['outcome'] => (ok ? 'passed' : 'failed');

/** A checkpoint is signed at least once a minute after the oldest entry none covers. */
const CHECKPOINT_WITHIN_MS = 60_000;
/** An entry is sealed within a second of being received. */
const SEALED_WITHIN_MS = 1_000;

function verdictOf(steps: readonly ProofStep[]): Verdict {
  if (steps.some((step) => step.outcome === 'failed')) return 'invalid';
  if (steps.some((step) => step.outcome === 'pending')) return 'pending';
  return steps.some((step) => step.outcome === 'unchecked') ? 'incomplete' : 'valid';
}

/**
 * When a checkpoint covering the entry is due at the latest: a minute after the oldest entry no
 * checkpoint covers was sealed, which is this one or an older one (sealed within a second of
 * its receipt).
 */
function checkpointDueBy(entry: Pick<LogEntry, 'receivedAt' | 'timestamp'>): Date {
  const received = Date.parse(entry.receivedAt ?? entry.timestamp);
  return new Date(received + SEALED_WITHIN_MS + CHECKPOINT_WITHIN_MS);
}

/**
 * Checks an entry as far as the browser can, with `@secadmin/log-chain`:
 * 1. sealed at its seq: its field digests and its hash, recomputed here from its content and
 *    the previous entry's hash;
 * 2. covered by a checkpoint: the first checkpoint at or after its seq, whose Ed25519
 *    signature is checked here with the key the server publishes (its fingerprint is shown, to
 *    compare with one known from elsewhere);
 * 3. the link between them: the entry's own hash when the checkpoint is at its seq, else the
 *    run of entries from it to the checkpoint (`GET /v1/logs/chain`), chained here.
 * A step this browser cannot check makes the verdict `incomplete`, never `valid`.
 */
export async function proveEntry(
  client: SecadminClient,
  entry: LogEntry,
  signal?: AbortSignal,
): Promise<Proof> {
  if (entry.seq === null || entry.hash === null || entry.prevHash === null)
    return { state: 'unsealed' };
  const seq = entry.seq;
  const [checkpoint, keys] = await Promise.all([
    coveringCheckpoint(client, seq, signal),
    client.logs.getPublicKey({ signal }),
  ]);
  const problem = ownProblem(entry as ChainEntry, entry.prevHash, entry.hash);
  const steps: ProofStep[] = [
    {
      label: `Sealed at seq ${seq}`,
      outcome: outcome(problem === undefined),
      detail:
        problem === undefined
          ? 'Its content, field digests and hash recomputed in this browser match.'
          : `Recomputed in this browser, it does not match: ${problem}.`,
    },
  ];
  if (!checkpoint) {
    const due = checkpointDueBy(entry).toISOString();
    steps.push({
      label: 'Covered by a checkpoint',
      outcome: 'pending',
      detail: `No signed checkpoint covers this seq yet: one is made every 1,000 entries and within a minute, so one is due by ${utc(due)} UTC. This proof is checked again by itself until one does.`,
    });
    return { state: 'checked', verdict: verdictOf(steps), steps };
  }
  const key = keyFor(keys, checkpoint.seq);
  const signed = await verifyCheckpointSignature(await importPublicKey(key.publicKey), checkpoint);
  steps.push({
    label: `Covered by checkpoint ${checkpoint.seq}`,
    outcome: outcome(signed),
    detail: signed
      ? `Its Ed25519 signature is valid for the key with fingerprint ${key.fingerprint} (checked in this browser).`
      : `Its signature is not valid for the key with fingerprint ${key.fingerprint}.`,
  });
  if (checkpoint.seq === seq) {
    const same = checkpoint.hash === entry.hash;
    steps.push({
      label: 'Entry and checkpoint agree',
      outcome: outcome(same),
      detail: same
        ? 'The checkpoint signs this entry’s hash (checked in this browser).'
        : 'The checkpoint signs another hash than this entry’s.',
    });
  } else {
    steps.push(await linkStep(client, entry, checkpoint, key.publicKey, signal));
  }
  return { state: 'checked', verdict: verdictOf(steps), steps, fingerprint: key.fingerprint };
}

/** The most seqs one `GET /v1/logs/chain` answers for. */
const RUN_SEQS = 100;

/**
 * The link from an entry to the checkpoint after it: the entries from its seq to the
 * checkpoint's, read by seq and chained in this browser (each one's digests and hash
 * recomputed, each following the hash before it, the last signed by the checkpoint). Nothing
 * here is the server's word: a stretch with a seq that has no entry (retention removed it, or
 * someone did) or entries this key may not read is left unchecked, never taken as valid.
 */
async function linkStep(
  client: SecadminClient,
  entry: LogEntry,
  checkpoint: Checkpoint,
  publicKeyPem: string,
  signal?: AbortSignal,
): Promise<ProofStep> {
  const seq = entry.seq as number;
  const label = `Chain from seq ${seq} to ${checkpoint.seq}`;
  const run: LogEntry[] = [];
  try {
    for (let from = seq; from <= checkpoint.seq; from += RUN_SEQS) {
      const toSeq = Math.min(from + RUN_SEQS - 1, checkpoint.seq);
      run.push(...(await client.logs.listChainEntries({ fromSeq: from, toSeq }, { signal })));
    }
  } catch (error) {
    if (!(error instanceof SecadminApiError) || error.status !== 403) throw error;
    return {
      label,
      outcome: 'unchecked',
      detail:
        'This key may not read every entry between this one and the checkpoint (logs:read on each), so the link cannot be recomputed here.',
    };
  }
  if (run[0]?.id !== entry.id || run[0]?.hash !== entry.hash)
    return { label, outcome: 'failed', detail: `The chain holds another entry at seq ${seq}.` };
  const missing = run.findIndex((e, i) => e.seq !== seq + i);
  if (missing !== -1 || run.length !== checkpoint.seq - seq + 1)
    return {
      label,
      outcome: 'unchecked',
      detail: `Seq ${missing === -1 ? seq + run.length : seq + missing} has no entry to recompute (retention removes old entries; a deleted one looks the same), so the link cannot be recomputed here. POST /v1/logs/verify checks such a stretch against the retention records.`,
    };
  const verifier = await ChainVerifier.create({ publicKeyPem, checkpoints: [checkpoint] });
  await verifier.add(run as ChainEntry[]);
  // Hashes and the signature hold; fields a user's deletion removed are accounted for by its
  // redaction records, which this browser does not read: not a failure, and not proven here.
  const redacted = verifier.failed ? 0 : verifier.unaccounted().length;
  if (redacted > 0)
    return {
      label,
      outcome: 'unchecked',
      detail: `The ${(run.length - 1).toLocaleString('en')} entries after it, recomputed in this browser, chain its hash to the checkpoint’s, but ${redacted.toLocaleString('en')} of this stretch had fields removed by a user’s deletion, whose redaction records this browser does not read. POST /v1/logs/verify accounts for them.`,
    };
  const result = await verifier.finish();
  return result.valid
    ? {
        label,
        outcome: 'passed',
        detail: `The ${(run.length - 1).toLocaleString('en')} entries after it, recomputed in this browser, chain its hash to the checkpoint’s.`,
      }
    : {
        label,
        outcome: 'failed',
        detail: `Recomputed in this browser, the chain breaks at seq ${result.firstInvalidSeq ?? '?'}: ${result.reason ?? ''}.`,
      };
}

/** Why the entry is not the one its hash sealed (its digests, then its hash), if it is not. */
function ownProblem(entry: ChainEntry, prevHash: string, hash: string): string | undefined {
  const problem = entryProblem(entry);
  if (problem) return problem;
  return entryHash(prevHash, entry) === hash
    ? undefined
    : 'its content does not hash to the hash it was sealed with';
}

/** The oldest checkpoint at or after `seq`: pages are newest first, so read until one is below. */
async function coveringCheckpoint(
  client: SecadminClient,
  seq: number,
  signal?: AbortSignal,
): Promise<Checkpoint | undefined> {
  let covering: Checkpoint | undefined;
  for await (const checkpoint of client.paginate(
    '/v1/logs/checkpoints',
    { limit: 100 },
    { signal },
  )) {
    if (checkpoint.seq < seq) break;
    covering = checkpoint;
  }
  return covering;
}

function keyFor(keys: Data<'getPublicKey'>, seq: number) {
  const signing = [...keys.keys]
    .sort((a, b) => b.fromSeq - a.fromSeq)
    .find((key) => key.fromSeq <= seq);
  return signing ?? { publicKey: keys.publicKey, fingerprint: keys.fingerprint };
}
