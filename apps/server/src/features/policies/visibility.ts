import type { PolicyExplanation } from '@secadmin/policy';
import type { RequestActor } from '../../lib/actor.js';
import type { AccessService, TimedDecision } from './access-service.js';

const HIDDEN = 'hidden';

/** An explanation item as the caller may see it: a hidden policy keeps its effect and outcome only. */
export type ShownExplanation = Pick<
  PolicyExplanation,
  'policyId' | 'policyName' | 'effect' | 'matched'
> &
  Partial<PolicyExplanation>;

export type ShownDecision = Omit<TimedDecision, 'explanation'> & {
  explanation?: ShownExplanation[];
};

/**
 * The missing context keys that a shown policy's conditions ask for (`ip` for `ip.allowlist`,
 * `resource.status` for `attributes.resource.status`): that a hidden policy has such a
 * condition is its own, not the caller's, to know.
 */
function missingFor(keys: string[], shown: ShownExplanation[]): string[] {
  return keys.filter((key) =>
    shown.some((item) =>
      Object.keys(item.conditions ?? {}).some(
        (c) => c.startsWith(`${key}.`) || c === `attributes.${key}`,
      ),
    ),
  );
}

/**
 * Names a stored policy in a simulation answer only to a caller that may read it
 * (`policies:read` on `policies/<id>`; the root key may always); others see its effect
 * under the id and name `hidden`, and no context key that only its conditions ask for. The
 * request's own drafts are always named. One per request: it remembers what the caller may
 * read.
 */
export class PolicyVisibility {
  private readonly readable = new Map<string, Promise<boolean>>();

  constructor(
    private readonly access: Pick<AccessService, 'permits'>,
    private readonly caller: RequestActor,
  ) {}

  async shown(decision: TimedDecision): Promise<ShownDecision> {
    const ids = new Set(decision.matchedPolicies.map((p) => p.id));
    for (const item of decision.explanation ?? []) ids.add(item.policyId);
    const hidden = new Set<string>();
    for (const id of ids) if (!(await this.mayRead(id))) hidden.add(id);
    if (hidden.size === 0) return decision;
    const shown: ShownDecision = {
      ...decision,
      matchedPolicies: decision.matchedPolicies.map((p) =>
        hidden.has(p.id) ? { id: HIDDEN, name: HIDDEN, effect: p.effect } : p,
      ),
    };
    if (decision.explanation) {
      // Sorted again, so that where a hidden item stands says nothing of its name.
      shown.explanation = decision.explanation
        .map(
          (item): ShownExplanation =>
            hidden.has(item.policyId)
              ? { policyId: HIDDEN, policyName: HIDDEN, effect: item.effect, matched: item.matched }
              : item,
        )
        .sort((a, b) => a.policyName.localeCompare(b.policyName));
    }
    if (decision.missingContextKeys)
      shown.missingContextKeys = missingFor(decision.missingContextKeys, shown.explanation ?? []);
    return shown;
  }

  /** Whether the caller may read the stored policy `id` (remembered for this request). */
  mayRead(id: string): Promise<boolean> {
    if (this.caller.isRoot || id.startsWith('draft_')) return Promise.resolve(true);
    let known = this.readable.get(id);
    if (!known) {
      known = this.access.permits(this.caller, 'policies:read', `policies/${id}`);
      this.readable.set(id, known);
    }
    return known;
  }
}
