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

function grouped(entries: Iterable<[string, string]>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const [type, id] of entries) {
    const set = sets.get(type) ?? new Set<string>();
    set.add(id);
    sets.set(type, set);
  }
  return new Map([...sets].map(([type, ids]) => [type, [...ids].sort()]));
}

function* split(patterns: Iterable<string>, separator: string): Iterable<[string, string]> {
  for (const pattern of patterns) {
    if (!isLiteral(pattern)) continue;
    const at = pattern.indexOf(separator);
    if (at > 0 && at < pattern.length - 1) yield [pattern.slice(0, at), pattern.slice(at + 1)];
  }
}

export function literalCandidates(policies: readonly PolicyDefinition[]): LiteralCandidates {
  return {
    subjects: grouped(
      split(
        policies.flatMap((p) => p.principals),
        ':',
      ),
    ),
    resources: grouped(
      split(
        policies.flatMap((p) => p.resources),
        '/',
      ),
    ),
    actions: [...new Set(policies.flatMap((p) => p.actions).filter(isLiteral))].sort(),
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
