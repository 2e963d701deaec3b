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
}

const isLiteral = (pattern: string) => !pattern.includes('*') && !pattern.includes(SELF);

/** Adds `type<separator>id` to `byType` if the pattern is a literal with both parts. */
function add(byType: Map<string, Set<string>>, pattern: string, separator: string): void {
  if (!isLiteral(pattern)) return;
  const at = pattern.indexOf(separator);
  if (at <= 0 || at === pattern.length - 1) return;
  const type = pattern.slice(0, at);
  const ids = byType.get(type) ?? new Set<string>();
  ids.add(pattern.slice(at + 1));
  byType.set(type, ids);
}

const sorted = (byType: Map<string, Set<string>>) =>
  new Map([...byType].map(([type, ids]) => [type, [...ids].sort()]));

export function literalCandidates(policies: readonly PolicyDefinition[]): LiteralCandidates {
  const subjects = new Map<string, Set<string>>();
  const resources = new Map<string, Set<string>>();
  const actions = new Set<string>();
  for (const policy of policies) {
    for (const principal of policy.principals) add(subjects, principal, ':');
    for (const resource of policy.resources) add(resources, resource, '/');
    for (const action of policy.actions) if (isLiteral(action)) actions.add(action);
  }
  return { subjects: sorted(subjects), resources: sorted(resources), actions: [...actions].sort() };
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
