export type Effect = 'allow' | 'deny';

/** A JSON scalar an attribute condition compares with. */
export type AttributeScalar = string | number | boolean;

/**
 * One test of one attribute (the spec's `AttributeOperator`; docs/policies-and-evaluation.md):
 * exactly one of these keys (`attributeConditionProblems` refuses anything else). Values never
 * convert between JSON types; the string `${self}` stands for the request principal's id.
 */
export interface AttributeOperator {
  equals?: AttributeScalar;
  notEquals?: AttributeScalar;
  in?: AttributeScalar[];
  notIn?: AttributeScalar[];
  exists?: boolean;
  lessThan?: number | string;
  lessThanOrEqual?: number | string;
  greaterThan?: number | string;
  greaterThanOrEqual?: number | string;
  startsWith?: string;
  contains?: AttributeScalar;
}

export interface PolicyConditions {
  ip?: { allowlist?: string[]; denylist?: string[] };
  time?: { notBefore?: string; notAfter?: string };
  /** Attribute path (`principal.…`, `resource.…`, `action.…`, `context.…`) → its test. */
  attributes?: Record<string, AttributeOperator>;
}

/** What a request says about its principal, resource and action. */
export interface RequestAttributes {
  principal?: Record<string, unknown>;
  resource?: Record<string, unknown>;
  action?: Record<string, unknown>;
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
  /** `ip` and `time` feed the ip and time conditions; every key is read by `context.*` paths. */
  context?: { ip?: string | undefined; time?: Date | undefined; [key: string]: unknown };
  attributes?: RequestAttributes | undefined;
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
  /** The principal is a user with `active: false`: denied whatever the policies say. */
  principalInactive?: true;
}
