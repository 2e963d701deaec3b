import type { Decision } from './types.js';

const NO_POLICY: Decision = {
  allowed: false,
  effect: 'deny',
  decision: 'implicit_deny',
  matchedPolicies: [],
};

/**
 * One decision over the policies of several indexes (e.g. the stored set and a draft set
 * evaluated beside it, never merged into it): matches, explanations and missing context
 * keys together, with the same rule — any deny wins, else any allow, else implicit deny.
 */
export function combineDecisions(decisions: Decision[]): Decision {
  if (decisions.length === 1) return decisions[0] as Decision;
  const matchedPolicies = decisions.flatMap((d) => d.matchedPolicies);
  const combined: Decision = matchedPolicies.some((p) => p.effect === 'deny')
    ? { allowed: false, effect: 'deny', decision: 'explicit_deny', matchedPolicies }
    : matchedPolicies.length > 0
      ? { allowed: true, effect: 'allow', decision: 'allow', matchedPolicies }
      : { ...NO_POLICY, matchedPolicies };
  const explained = decisions.filter((d) => d.explanation);
  if (explained.length > 0) {
    combined.explanation = explained
      .flatMap((d) => d.explanation ?? [])
      .sort((a, b) => a.policyName.localeCompare(b.policyName));
    combined.missingContextKeys = [
      ...new Set(explained.flatMap((d) => d.missingContextKeys ?? [])),
    ].sort();
  }
  return combined;
}
