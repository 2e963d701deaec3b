import { randomBytes } from 'node:crypto';
import { fieldDigest, redactableFields } from '@secadmin/log-chain';

/** Salts come from a pool: one randomBytes call per 4,096 salts (one call per field is much slower). */
const POOL_SALTS = 4096;
let pool = '';
let used = POOL_SALTS;

function nextSalt(): string {
  if (used === POOL_SALTS) {
    pool = randomBytes(16 * POOL_SALTS).toString('hex');
    used = 0;
  }
  return pool.slice(used * 32, ++used * 32);
}

export interface Commitments {
  digests: Record<string, string>;
  salts: Record<string, string>;
}

/** The redactable fields of a stored row, as the log-chain package names them. */
export interface RedactableColumns {
  actorEmail?: string | null;
  targetId?: string | null;
  metadata?: unknown;
}

/**
 * A random salt and a salted digest per redactable field (`actor.email`, `target.id`,
 * `metadata.<key>`), computed when an entry is written. `metadata` must be the JSON the
 * database stores (what JSON.stringify / JSON.parse give), so the digest matches what
 * the API shows later.
 */
export function commit(row: RedactableColumns): Commitments {
  const fields = redactableFields({
    actor: { type: '', email: row.actorEmail ?? null },
    target: { id: row.targetId ?? null },
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
  });
  const digests: Record<string, string> = {};
  const salts: Record<string, string> = {};
  for (const [path, value] of fields) {
    const salt = nextSalt();
    salts[path] = salt;
    digests[path] = fieldDigest(salt, value);
  }
  return { digests, salts };
}
