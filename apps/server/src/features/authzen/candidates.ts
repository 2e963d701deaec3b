import { type PolicyDefinition, SELF } from '@secadmin/policy';

/**
 * The literal identifiers that stored policies name, by kind and type, each list sorted and
 * without repeats: what AuthZEN's searches try beside the stored users. A pattern with `*` or
 * `${self}` names no identifier; a resource without `/` has no AuthZEN type.
 */
export interface LiteralCandidates {
  /** `user` → [`alice`, `bob`] from the principals `user:alice`, `user:bob`. */
  subjects: ReadonlyMap<string, readonly string[]>;
  /** `record` → [`record-1`] from the resource `record/record-1`. */
  resources: ReadonlyMap<string, readonly string[]>;
  actions: readonly string[];
  /** The ids of the policies that name each literal, by `namerKey(kind, type, id)`. */
  namers: ReadonlyMap<string, readonly string[]>;
}

export type CandidateKind = 'subject' | 'resource' | 'action';

/** Where `namers` keeps the policies naming a literal of `kind` (an action has no type). */
export const namerKey = (kind: CandidateKind, type: string, id: string) =>
  `${kind}\u0000${type}\u0000${id}`;

const isLiteral = (pattern: string) => !pattern.includes('*') && !pattern.includes(SELF);

/** Splits a literal `type<separator>id` pattern; undefined for a pattern or a part missing. */
function typedLiteral(pattern: string, separator: string): [string, string] | undefined {
  if (!isLiteral(pattern)) return undefined;
  const at = pattern.indexOf(separator);
  if (at <= 0 || at === pattern.length - 1) return undefined;
  return [pattern.slice(0, at), pattern.slice(at + 1)];
}

const sorted = (byType: Map<string, Set<string>>) =>
  new Map([...byType].map(([type, ids]) => [type, [...ids].sort()]));

export function literalCandidates(policies: readonly PolicyDefinition[]): LiteralCandidates {
  const subjects = new Map<string, Set<string>>();
  const resources = new Map<string, Set<string>>();
  const actions = new Set<string>();
  const namers = new Map<string, string[]>();
  const named = (key: string, policyId: string) => {
    const ids = namers.get(key);
    if (!ids) namers.set(key, [policyId]);
    else if (ids[ids.length - 1] !== policyId) ids.push(policyId);
  };
  const add = (
    kind: CandidateKind,
    byType: Map<string, Set<string>>,
    literal: [string, string] | undefined,
    policyId: string,
  ) => {
    if (!literal) return;
    const [type, id] = literal;
    const ids = byType.get(type) ?? new Set<string>();
    ids.add(id);
    byType.set(type, ids);
    named(namerKey(kind, type, id), policyId);
  };
  for (const policy of policies) {
    for (const principal of policy.principals)
      add('subject', subjects, typedLiteral(principal, ':'), policy.id);
    for (const resource of policy.resources)
      add('resource', resources, typedLiteral(resource, '/'), policy.id);
    for (const action of policy.actions)
      if (isLiteral(action)) {
        actions.add(action);
        named(namerKey('action', '', action), policy.id);
      }
  }
  return {
    subjects: sorted(subjects),
    resources: sorted(resources),
    actions: [...actions].sort(),
    namers,
  };
}

/**
 * The candidates of the policies decisions are made against, derived once per set of
 * policies: the access service hands out the same array until a policy changes (on any
 * instance), so a change is seen by the very next search.
 */
export class CandidateIndex {
  private readonly cache = new WeakMap<readonly PolicyDefinition[], LiteralCandidates>();

  of(policies: readonly PolicyDefinition[]): LiteralCandidates {
    let candidates = this.cache.get(policies);
    if (!candidates) {
      candidates = literalCandidates(policies);
      this.cache.set(policies, candidates);
    }
    return candidates;
  }
}
