import type { PolicyDefinition } from '@secadmin/policy';

/**
 * The top-level keys of a stored user's `metadata` that stored policies read: a condition on
 * `principal.metadata.<key>` or on a path under it (`principal.metadata.<key>.<sub>`) reads
 * `<key>`; one on `principal.metadata` itself reads every key (`every`). Changing such a key
 * is a grant (docs/auth-and-access.md).
 */
export interface MetadataKeysRead {
  every: boolean;
  keys: ReadonlySet<string>;
}

const PREFIX = 'principal.metadata';

/** Derived once per loaded set of policies: the set is replaced, never changed, when one changes. */
const derived = new WeakMap<readonly PolicyDefinition[], MetadataKeysRead>();

export function metadataKeysRead(policies: readonly PolicyDefinition[]): MetadataKeysRead {
  const known = derived.get(policies);
  if (known) return known;
  let every = false;
  const keys = new Set<string>();
  for (const policy of policies) {
    // Paths are split on `.` as the engine reads them (`@secadmin/policy`'s compileAttributes).
    for (const path of Object.keys(policy.conditions?.attributes ?? {})) {
      const [root, attribute, key] = path.split('.');
      if (`${root}.${attribute}` !== PREFIX) continue;
      if (key === undefined) every = true;
      else keys.add(key);
    }
  }
  const read = { every, keys };
  derived.set(policies, read);
  return read;
}
