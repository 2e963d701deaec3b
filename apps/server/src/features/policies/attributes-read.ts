import type { PolicyDefinition } from '@secadmin/policy';

/**
 * The fields of a stored user that policies read as `principal.<field>` and that a change of
 * the user can move (decisions §8): changing one that a stored policy reads is a grant of
 * `fields/<field>`. `roles` are grants of their own (`roles/<role>`); `active: false` denies
 * every decision whatever a policy reads, so it grants nothing and stays a plain update.
 */
export const GRANTED_FIELDS = ['email', 'emailVerified'] as const;
export type GrantedField = (typeof GRANTED_FIELDS)[number];

/**
 * What of a stored user the stored policies read. `keys`: the top-level keys of `metadata` — a
 * condition on `principal.metadata.<key>` or on a path under it reads `<key>`; one on
 * `principal.metadata` itself reads every key (`every`). `fields`: the `GRANTED_FIELDS` read as
 * `principal.<field>` (or a path under it). Changing any of them is a grant
 * (docs/auth-and-access.md).
 */
export interface UserAttributesRead {
  every: boolean;
  keys: ReadonlySet<string>;
  fields: ReadonlySet<GrantedField>;
}

const isGrantedField = (name: string | undefined): name is GrantedField =>
  (GRANTED_FIELDS as readonly (string | undefined)[]).includes(name);

/** Derived once per loaded set of policies: the set is replaced, never changed, when one changes. */
const derived = new WeakMap<readonly PolicyDefinition[], UserAttributesRead>();

export function userAttributesRead(policies: readonly PolicyDefinition[]): UserAttributesRead {
  const known = derived.get(policies);
  if (known) return known;
  let every = false;
  const keys = new Set<string>();
  const fields = new Set<GrantedField>();
  for (const policy of policies) {
    // Paths are split on `.` as the engine reads them (`@secadmin/policy`'s compileAttributes).
    for (const path of Object.keys(policy.conditions?.attributes ?? {})) {
      const [root, attribute, key] = path.split('.');
      if (root !== 'principal') continue;
      if (isGrantedField(attribute)) fields.add(attribute);
      if (attribute !== 'metadata') continue;
      if (key === undefined) every = true;
      else keys.add(key);
    }
  }
  const read = { every, keys, fields };
  derived.set(policies, read);
  return read;
}
