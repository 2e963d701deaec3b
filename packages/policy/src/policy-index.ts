import {
  type AttributeSources,
  type CompiledAttribute,
  compileAttributes,
  isMissing,
  readAttribute,
} from './attributes.js';
import { type CidrBlock, cidrContains, type IpAddress, parseCidr, parseIp } from './ip.js';
import { compileGlob, type GlobPattern, matchGlob, SELF, selfOf } from './patterns.js';
import type {
  AccessRequest,
  Decision,
  MatchedPolicy,
  PolicyDefinition,
  PolicyExplanation,
} from './types.js';

interface CompiledConditions {
  allowlist?: CidrBlock[];
  denylist?: CidrBlock[];
  notBefore?: number;
  notAfter?: number;
  attributes?: CompiledAttribute[];
}

/** What conditions are checked against, for one request. */
interface ConditionInput extends AttributeSources {
  ip: IpAddress | undefined;
  self: string;
}

interface CompiledPolicy {
  ordinal: number;
  policy: PolicyDefinition;
  deny: boolean;
  actions: GlobPattern[];
  resources: GlobPattern[];
  principals: readonly string[];
  conditions: CompiledConditions | undefined;
  /** Some attribute condition reads a `principal.` path. */
  readsPrincipal: boolean;
}

const ANY_USER = `user:${SELF}`;
const WILDCARD = '*';

/**
 * The key an action pattern is filed under: the exact action, `<area>:*` for a pattern
 * whose area is literal, or `*` for anything else. A request looks in its three buckets.
 */
function actionKey(pattern: string): string {
  if (!pattern.includes('*')) return pattern;
  const colon = pattern.indexOf(':');
  if (colon > 0 && !pattern.slice(0, colon).includes('*')) return `${pattern.slice(0, colon)}:*`;
  return WILDCARD;
}

function compileConditions(policy: PolicyDefinition): CompiledConditions | undefined {
  const conditions = policy.conditions;
  if (!conditions) return undefined;
  const blocks = (list: string[] | undefined) =>
    list?.map((text) => {
      const block = parseCidr(text);
      if (!block) throw new Error(`Policy ${policy.id} has an invalid CIDR: ${text}`);
      return block;
    });
  const compiled: CompiledConditions = {};
  const allowlist = blocks(conditions.ip?.allowlist);
  const denylist = blocks(conditions.ip?.denylist);
  if (allowlist) compiled.allowlist = allowlist;
  if (denylist) compiled.denylist = denylist;
  if (conditions.time?.notBefore) compiled.notBefore = Date.parse(conditions.time.notBefore);
  if (conditions.time?.notAfter) compiled.notAfter = Date.parse(conditions.time.notAfter);
  if (conditions.attributes) compiled.attributes = compileAttributes(conditions.attributes);
  return compiled;
}

/**
 * Every policy, compiled and filed by principal and then by action, so that a
 * decision looks only at the policies that can apply to its principal and action.
 * Pure: build it from the stored policies, replace it when they change.
 */
export class PolicyIndex {
  readonly size: number;
  /** Some policy has an attribute condition on a `principal.` path. */
  private readonly readsPrincipal: boolean;
  private readonly buckets = new Map<string, Map<string, CompiledPolicy[]>>();
  /** Per-evaluation visit marks, so a policy in several buckets is checked once. */
  private readonly seen: Uint32Array;
  private stamp = 0;

  constructor(policies: readonly PolicyDefinition[]) {
    this.size = policies.length;
    this.seen = new Uint32Array(policies.length);
    let readsPrincipal = false;
    policies.forEach((policy, ordinal) => {
      const conditions = compileConditions(policy);
      const compiled: CompiledPolicy = {
        ordinal,
        policy,
        deny: policy.effect === 'deny',
        actions: policy.actions.map((a) => compileGlob(a.toLowerCase())),
        resources: policy.resources.map(compileGlob),
        principals: policy.principals,
        conditions,
        readsPrincipal:
          conditions?.attributes?.some((attribute) => attribute.root === 'principal') === true,
      };
      readsPrincipal ||= compiled.readsPrincipal;
      const actionKeys = new Set(policy.actions.map((a) => actionKey(a.toLowerCase())));
      for (const principal of new Set(policy.principals)) {
        let byAction = this.buckets.get(principal);
        if (!byAction) {
          byAction = new Map();
          this.buckets.set(principal, byAction);
        }
        for (const key of actionKeys) {
          const list = byAction.get(key);
          if (list) list.push(compiled);
          else byAction.set(key, [compiled]);
        }
      }
    });
    this.readsPrincipal = readsPrincipal;
  }

  /**
   * Whether a policy that this request's principal, action and resource match has a condition
   * on a `principal.` attribute: only then does a caller need to look up the principal's
   * stored attributes before `evaluate` (with `explain`, whenever any policy has one).
   */
  readsPrincipalAttributes(request: AccessRequest): boolean {
    if (!this.readsPrincipal) return false;
    // An explanation shows every condition of every policy of the principal.
    if (request.explain) return true;
    const action = request.action.toLowerCase();
    const self = selfOf(request.principal);
    for (const principal of this.principalKeys(request)) {
      const byAction = this.buckets.get(principal);
      if (!byAction) continue;
      for (const key of this.actionKeys(action)) {
        for (const candidate of byAction.get(key) ?? []) {
          if (
            candidate.readsPrincipal &&
            candidate.actions.some((g) => matchGlob(g, action)) &&
            candidate.resources.some((g) => matchGlob(g, request.resource, self))
          )
            return true;
        }
      }
    }
    return false;
  }

  evaluate(request: AccessRequest): Decision {
    const principalKeys = this.principalKeys(request);
    const action = request.action.toLowerCase();
    const actionKeys = this.actionKeys(action);
    const self = selfOf(request.principal);
    const ip = request.context?.ip === undefined ? undefined : parseIp(request.context.ip);
    const time = (request.context?.time ?? new Date()).getTime();
    const input: ConditionInput = {
      ip,
      time,
      self,
      attributes: request.attributes,
      context: request.context,
    };
    const stamp = this.nextStamp();

    const matched: CompiledPolicy[] = [];
    const explanation: PolicyExplanation[] = [];
    const missing = new Set<string>();
    for (const principal of principalKeys) {
      const byAction = this.buckets.get(principal);
      if (!byAction) continue;
      for (const key of request.explain ? byAction.keys() : actionKeys) {
        const candidates = byAction.get(key);
        if (!candidates) continue;
        for (const candidate of candidates) {
          if (this.seen[candidate.ordinal] === stamp) continue;
          this.seen[candidate.ordinal] = stamp;
          if (request.explain) {
            const item = explain(candidate, action, request.resource, input, missing);
            explanation.push(item);
            if (item.matched) matched.push(candidate);
          } else if (
            candidate.actions.some((g) => matchGlob(g, action)) &&
            candidate.resources.some((g) => matchGlob(g, request.resource, self)) &&
            conditionsHold(candidate.conditions, input)
          ) {
            matched.push(candidate);
          }
        }
      }
    }
    matched.sort((a, b) => a.ordinal - b.ordinal);
    const matchedPolicies: MatchedPolicy[] = matched.map(({ policy }) => ({
      id: policy.id,
      name: policy.name,
      effect: policy.effect,
    }));
    const denied = matched.some((p) => p.deny);
    const decision: Decision = denied
      ? { allowed: false, effect: 'deny', decision: 'explicit_deny', matchedPolicies }
      : matched.length > 0
        ? { allowed: true, effect: 'allow', decision: 'allow', matchedPolicies }
        : { allowed: false, effect: 'deny', decision: 'implicit_deny', matchedPolicies };
    if (request.explain) {
      explanation.sort((a, b) => a.policyName.localeCompare(b.policyName));
      decision.explanation = explanation;
      decision.missingContextKeys = [...missing].sort();
    }
    return decision;
  }

  private actionKeys(action: string): string[] {
    const colon = action.indexOf(':');
    return colon > 0 ? [action, `${action.slice(0, colon)}:*`, WILDCARD] : [action, WILDCARD];
  }

  /** The request principal, its roles, `*`, and `user:${self}` for a user. */
  private principalKeys(request: AccessRequest): string[] {
    const keys = [request.principal, WILDCARD];
    if (request.principal.startsWith('user:')) keys.push(ANY_USER);
    for (const role of request.roles ?? []) keys.push(`role:${role}`);
    return keys;
  }

  private nextStamp(): number {
    this.stamp = this.stamp === 0xffffffff ? 1 : this.stamp + 1;
    if (this.stamp === 1) this.seen.fill(0);
    return this.stamp;
  }
}

function conditionsHold(c: CompiledConditions | undefined, input: ConditionInput): boolean {
  if (!c) return true;
  const { ip, time } = input;
  if (c.allowlist && !(ip && c.allowlist.some((b) => cidrContains(b, ip)))) return false;
  if (c.denylist && !(ip && !c.denylist.some((b) => cidrContains(b, ip)))) return false;
  if (c.notBefore !== undefined && !(time >= c.notBefore)) return false;
  if (c.notAfter !== undefined && !(time <= c.notAfter)) return false;
  if (c.attributes) {
    for (const attribute of c.attributes)
      if (!attribute.holds(readAttribute(input, attribute), input.self)) return false;
  }
  return true;
}

function explain(
  candidate: CompiledPolicy,
  action: string,
  resource: string,
  input: ConditionInput,
  missing: Set<string>,
): PolicyExplanation {
  const { ip, time } = input;
  const actionMatched = candidate.actions.some((g) => matchGlob(g, action));
  const resourceMatched = candidate.resources.some((g) => matchGlob(g, resource, input.self));
  const conditions: Record<string, boolean> = {};
  const c = candidate.conditions;
  if (c?.allowlist) conditions['ip.allowlist'] = conditionsHold({ allowlist: c.allowlist }, input);
  if (c?.denylist) conditions['ip.denylist'] = conditionsHold({ denylist: c.denylist }, input);
  if (c?.notBefore !== undefined) conditions['time.notBefore'] = time >= c.notBefore;
  if (c?.notAfter !== undefined) conditions['time.notAfter'] = time <= c.notAfter;
  if ((c?.allowlist || c?.denylist) && ip === undefined) missing.add('ip');
  for (const attribute of c?.attributes ?? []) {
    const value = readAttribute(input, attribute);
    if (isMissing(value)) missing.add(attribute.path);
    conditions[`attributes.${attribute.path}`] = attribute.holds(value, input.self);
  }
  const matched = actionMatched && resourceMatched && Object.values(conditions).every(Boolean);
  return {
    policyId: candidate.policy.id,
    policyName: candidate.policy.name,
    effect: candidate.policy.effect,
    matched,
    principal: true,
    action: actionMatched,
    resource: resourceMatched,
    conditions,
  };
}
