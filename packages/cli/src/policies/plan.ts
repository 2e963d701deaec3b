import type { Policy, PolicyCreate, PolicyUpdate } from '@secadmin/api-client';
import type { PolicyFile } from './files.js';

type Field = Exclude<keyof PolicyCreate, 'name'>;
const FIELDS: readonly Field[] = [
  'description',
  'effect',
  'principals',
  'actions',
  'resources',
  'conditions',
];

export interface FieldChange {
  field: Field;
  from: unknown;
  to: unknown;
}

/** A stored policy as read for the plan, with the `ETag` to send back as `If-Match`. */
export interface ReadPolicy {
  policy: Policy;
  etag: string | undefined;
}

/** What the plan compares with: every stored policy's id and name, and the full policy of those a file names. */
export interface StoredPolicies {
  listed: readonly { id: string; name: string }[];
  byName: ReadonlyMap<string, ReadPolicy>;
}

export type PlanStep =
  | { kind: 'create'; file: string; body: PolicyCreate }
  | {
      kind: 'update';
      file: string;
      id: string;
      name: string;
      etag: string | undefined;
      changes: FieldChange[];
      body: PolicyUpdate;
    }
  | { kind: 'delete'; id: string; name: string };

/** What `apply` would do to make the stored policies match the folder's, matched by name. */
export function planChanges(
  files: readonly PolicyFile[],
  stored: StoredPolicies,
  prune: boolean,
): PlanStep[] {
  const steps: PlanStep[] = [];
  for (const { file, policy } of files) {
    const current = stored.byName.get(policy.name);
    if (!current) {
      steps.push({ kind: 'create', file, body: policy });
      continue;
    }
    const changes = diffPolicy(current.policy, policy);
    if (changes.length === 0) continue;
    const body: PolicyUpdate = {};
    for (const { field, to } of changes) Object.assign(body, { [field]: to ?? null });
    steps.push({
      kind: 'update',
      file,
      id: current.policy.id,
      name: policy.name,
      etag: current.etag,
      changes,
      body,
    });
  }
  if (prune) {
    const wanted = new Set(files.map(({ policy }) => policy.name));
    for (const { id, name } of stored.listed)
      if (!wanted.has(name)) steps.push({ kind: 'delete', id, name });
  }
  return steps;
}

export function diffPolicy(stored: Policy, wanted: PolicyCreate): FieldChange[] {
  return FIELDS.flatMap((field) => {
    const from = stored[field] ?? undefined;
    const to = wanted[field] ?? undefined;
    return canonical(from) === canonical(to) ? [] : [{ field, from, to }];
  });
}

// Key order is not significant, and instants may be written in any ISO form but come back
// normalized: compare them as times.
function canonical(value: unknown): string {
  return JSON.stringify(value, (key, inner) => {
    if ((key === 'notBefore' || key === 'notAfter') && typeof inner === 'string')
      return new Date(inner).getTime();
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner))
      return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)));
    return inner;
  });
}
