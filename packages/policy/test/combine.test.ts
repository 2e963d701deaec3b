import { describe, expect, it } from 'vitest';
import { combineDecisions, PolicyIndex } from '../src/index.js';
import type { PolicyDefinition } from '../src/types.js';

const policy = (id: string, effect: 'allow' | 'deny', extra: Partial<PolicyDefinition> = {}) => ({
  id,
  name: id,
  effect,
  principals: ['role:dev'],
  actions: ['docs:read'],
  resources: ['docs/*'],
  ...extra,
});
const request = { principal: 'role:dev', action: 'docs:read', resource: 'docs/1' };

describe('combineDecisions', () => {
  it('lets a deny in either set win, and lists every match', () => {
    const stored = new PolicyIndex([policy('stored-allow', 'allow')]);
    const drafts = new PolicyIndex([policy('draft-deny', 'deny')]);
    const decision = combineDecisions([stored.evaluate(request), drafts.evaluate(request)]);
    expect(decision).toMatchObject({ allowed: false, decision: 'explicit_deny' });
    expect(decision.matchedPolicies.map((p) => p.id)).toEqual(['stored-allow', 'draft-deny']);
  });

  it('allows when one set allows and none denies; implicit deny when nothing matches', () => {
    const allow = new PolicyIndex([policy('a', 'allow')]).evaluate(request);
    const nothing = new PolicyIndex([]).evaluate(request);
    expect(combineDecisions([nothing, allow])).toMatchObject({ allowed: true, decision: 'allow' });
    expect(combineDecisions([nothing, nothing])).toEqual({
      allowed: false,
      effect: 'deny',
      decision: 'implicit_deny',
      matchedPolicies: [],
    });
  });

  it('merges explanations by policy name and missing context keys', () => {
    const ipOnly = policy('b-ip', 'allow', { conditions: { ip: { allowlist: ['10.0.0.0/8'] } } });
    const a = new PolicyIndex([ipOnly]).evaluate({ ...request, explain: true });
    const b = new PolicyIndex([policy('a-plain', 'allow')]).evaluate({ ...request, explain: true });
    const decision = combineDecisions([a, b]);
    expect(decision.explanation?.map((e) => e.policyName)).toEqual(['a-plain', 'b-ip']);
    expect(decision.missingContextKeys).toEqual(['ip']);
  });
});
