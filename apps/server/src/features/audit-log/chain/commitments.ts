import { randomBytes } from 'node:crypto';
import { fieldDigest, redactableFields } from '@secadmin/log-chain';

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
  if (fields.size === 0) return { digests, salts };
  const random = randomBytes(16 * fields.size).toString('hex');
  let i = 0;
  for (const [path, value] of fields) {
    const salt = random.slice(i * 32, ++i * 32);
    salts[path] = salt;
    digests[path] = fieldDigest(salt, value);
  }
  return { digests, salts };
}
