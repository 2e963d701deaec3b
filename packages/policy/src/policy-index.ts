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
}

interface CompiledPolicy {
  ordinal: number;
  policy: PolicyDefinition;
  deny: boolean;
  actions: GlobPattern[];
  resources: GlobPattern[];
  principals: readonly string[];
  conditions: CompiledConditions | undefined;
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
  return compiled;
}

/**
 * Every policy, compiled and filed by principal and then by action, so that a
 * decision looks only at the policies that can apply to its principal and action.
 * Pure: build it from the stored policies, replace it when they change.
 */
export class PolicyIndex {
  readonly size: number;
  private readonly buckets = new Map<string, Map<string, CompiledPolicy[]>>();
  /** Per-evaluation visit marks, so a policy in several buckets is checked once. */
  private readonly seen: Uint32Array;
  private stamp = 0;

  constructor(policies: readonly PolicyDefinition[]) {
    this.size = policies.length;
    this.seen = new Uint32Array(policies.length);
    policies.forEach((policy, ordinal) => {
      const compiled: CompiledPolicy = {
        ordinal,
        policy,
        deny: policy.effect === 'deny',
        actions: policy.actions.map((a) => compileGlob(a.toLowerCase())),
        resources: policy.resources.map(compileGlob),
        principals: policy.principals,
        conditions: compileConditions(policy),
      };
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
  }

  evaluate(request: AccessRequest): Decision {
    const principalKeys = this.principalKeys(request);
    const action = request.action.toLowerCase();
    const colon = action.indexOf(':');
    const actionKeys =
      colon > 0 ? [action, `${action.slice(0, colon)}:*`, WILDCARD] : [action, WILDCARD];
    const self = selfOf(request.principal);
    const ip = request.context?.ip === undefined ? undefined : parseIp(request.context.ip);
    const time = (request.context?.time ?? new Date()).getTime();
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
            const item = explain(candidate, action, request.resource, self, ip, time, missing);
            explanation.push(item);
            if (item.matched) matched.push(candidate);
          } else if (
            candidate.actions.some((g) => matchGlob(g, action)) &&
            candidate.resources.some((g) => matchGlob(g, request.resource, self)) &&
            conditionsHold(candidate.conditions, ip, time)
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

function conditionsHold(
  c: CompiledConditions | undefined,
  ip: IpAddress | undefined,
  time: number,
) {
  if (!c) return true;
  if (c.allowlist && !(ip && c.allowlist.some((b) => cidrContains(b, ip)))) return false;
  if (c.denylist && !(ip && !c.denylist.some((b) => cidrContains(b, ip)))) return false;
  if (c.notBefore !== undefined && !(time >= c.notBefore)) return false;
  if (c.notAfter !== undefined && !(time <= c.notAfter)) return false;
  return true;
}

function explain(
  candidate: CompiledPolicy,
  action: string,
  resource: string,
  self: string,
  ip: IpAddress | undefined,
  time: number,
  missing: Set<string>,
): PolicyExplanation {
  const actionMatched = candidate.actions.some((g) => matchGlob(g, action));
  const resourceMatched = candidate.resources.some((g) => matchGlob(g, resource, self));
  const conditions: Record<string, boolean> = {};
  const c = candidate.conditions;
  if (c?.allowlist)
    conditions['ip.allowlist'] = conditionsHold({ allowlist: c.allowlist }, ip, time);
  if (c?.denylist) conditions['ip.denylist'] = conditionsHold({ denylist: c.denylist }, ip, time);
  if (c?.notBefore !== undefined) conditions['time.notBefore'] = time >= c.notBefore;
  if (c?.notAfter !== undefined) conditions['time.notAfter'] = time <= c.notAfter;
  if ((c?.allowlist || c?.denylist) && ip === undefined) missing.add('ip');
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
