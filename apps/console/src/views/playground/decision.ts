import type { components } from '@secadmin/api-client';

export type SimulationResult = components['schemas']['SimulationResult'];
export type SimulationCheck = components['schemas']['SimulationCheck'];
type Named = { id: string; name: string };

/** A policy as a person reads it: a draft by its number and name; one the key may not read says so. */
export function policyLabel({ id, name }: Named): string {
  if (id === 'hidden') return 'a policy this key may not read';
  const draft = /^draft_(\d+)$/.exec(id);
  if (draft) return `draft ${Number(draft[1]) + 1} “${name}”`;
  return `“${name}”`;
}

/** The decision in words: which policies decided it, or why none did. */
export function decisionSentence(result: SimulationResult): string {
  const deciding = result.matchedPolicies.filter((p) => p.effect === result.effect);
  const names = deciding.map(policyLabel).join(', ');
  switch (result.decision) {
    case 'allow':
      return `Allowed by ${names}.`;
    case 'explicit_deny':
      return `Denied by ${names} (a matching deny overrides every allow).`;
    default:
      return result.principalInactive
        ? 'Denied: the user is inactive, so every decision about it is a deny.'
        : 'Denied: no policy allows it (implicit deny).';
  }
}

export const decisionLabel: Record<SimulationResult['decision'], string> = {
  allow: 'Allowed',
  explicit_deny: 'Denied (explicit deny)',
  implicit_deny: 'Denied (no policy allows it)',
};
