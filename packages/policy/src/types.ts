export type Effect = 'allow' | 'deny';

export interface PolicyConditions {
  ip?: { allowlist?: string[]; denylist?: string[] };
  time?: { notBefore?: string; notAfter?: string };
}

/** A stored policy, as the evaluator needs it. */
export interface PolicyDefinition {
  id: string;
  name: string;
  effect: Effect;
  principals: string[];
  actions: string[];
  resources: string[];
  conditions?: PolicyConditions | null;
}

export interface AccessRequest {
  /** `user:<id>`, `role:<id>` or `service:<name>`. */
  principal: string;
  /** Roles the principal holds (for a user principal, looked up by the caller). */
  roles?: readonly string[];
  action: string;
  resource: string;
  context?: { ip?: string | undefined; time?: Date | undefined };
  explain?: boolean;
}

export interface MatchedPolicy {
  id: string;
  name: string;
  effect: Effect;
}

export interface PolicyExplanation {
  policyId: string;
  policyName: string;
  effect: Effect;
  matched: boolean;
  principal: boolean;
  action: boolean;
  resource: boolean;
  conditions: Record<string, boolean>;
}

export interface Decision {
  allowed: boolean;
  effect: Effect;
  decision: 'allow' | 'explicit_deny' | 'implicit_deny';
  matchedPolicies: MatchedPolicy[];
  explanation?: PolicyExplanation[];
  missingContextKeys?: string[];
}
