// One realistic policy mix, written three ways (secadmin, Cedar, casbin), and one set
// of requests, so that the three engines answer the same questions.
/** @import { StatefulAuthorizationCall } from '@cedar-policy/cedar-wasm/nodejs' */
/** @import { PolicyDefinition } from '@secadmin/policy' */
import { cyclic } from './measure.mjs';

const AREAS = ['users', 'policies', 'logs', 'apikeys', 'documents', 'billing', 'reports', 'teams'];
const VERBS = ['read', 'list', 'create', 'update', 'delete', 'export'];
const CIDRS = ['10.0.0.0/8', '2001:db8::/32'];

/**
 * A policy of the mix; one principal, one resource, one or (service) two actions.
 * @typedef {Omit<PolicyDefinition, 'principals' | 'actions' | 'resources'> & {
 *   kind: 'user' | 'role' | 'self' | 'service',
 *   principals: [string],
 *   actions: [string, ...string[]],
 *   resources: [string],
 * }} WorkloadPolicy
 */
/** @typedef {ReturnType<typeof makeRequests>[number]} WorkloadRequest */

/** @param {number} seed */
export function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * 40 % exact user grants, 30 % role grants on `<area>:*` and `<area>/*`, 15 % `${self}`
 * grants, 15 % service grants with an IP allowlist; 10 % of all are denies.
 * @param {number} count
 * @returns {WorkloadPolicy[]}
 */
export function makePolicies(count, random = seeded(42)) {
  /** @type {<T>(list: readonly T[]) => T} */
  const pick = (list) => cyclic(list, Math.floor(random() * list.length));
  const users = Math.max(10, Math.floor(count / 4));
  return Array.from({ length: count }, (_, i) => {
    const kind = random();
    const area = pick(AREAS);
    /** @type {Pick<PolicyDefinition, 'id' | 'name' | 'effect'>} */
    const base = {
      id: `pol_${String(i).padStart(26, '0')}`,
      name: `p${i}`,
      effect: random() < 0.1 ? 'deny' : 'allow',
    };
    if (kind < 0.4) {
      return {
        ...base,
        kind: 'user',
        principals: [`user:u${Math.floor(random() * users)}`],
        actions: [`${area}:${pick(VERBS)}`],
        resources: [`${area}/${Math.floor(random() * 100)}`],
      };
    }
    if (kind < 0.7) {
      return {
        ...base,
        kind: 'role',
        principals: [`role:r${Math.floor(random() * 200)}`],
        actions: [`${area}:*`],
        resources: [`${area}/*`],
      };
    }
    if (kind < 0.85) {
      return {
        ...base,
        kind: 'self',
        principals: ['user:${self}'],
        actions: [`${area}:${pick(VERBS)}`],
        resources: [`${area}/\${self}`],
      };
    }
    return {
      ...base,
      kind: 'service',
      principals: [`service:s${Math.floor(random() * 50)}`],
      actions: [`${area}:${pick(VERBS)}`, `${pick(AREAS)}:read`],
      resources: ['*'],
      conditions: { ip: { allowlist: CIDRS } },
    };
  });
}

/**
 * A user's roles are a function of the user, as a directory would give them.
 * @param {string} id
 */
export function rolesOf(id) {
  const n = Number(id.slice(1));
  return [`r${(n * 7) % 200}`, `r${(n * 13 + 5) % 200}`];
}

/**
 * @param {number} count
 * @param {number} policyCount
 */
export function makeRequests(count, policyCount, random = seeded(7)) {
  /** @type {<T>(list: readonly T[]) => T} */
  const pick = (list) => cyclic(list, Math.floor(random() * list.length));
  const users = Math.max(10, Math.floor(policyCount / 4));
  return Array.from({ length: count }, () => {
    const area = pick(AREAS);
    const isUser = random() < 0.7;
    const id = isUser ? `u${Math.floor(random() * users)}` : `s${Math.floor(random() * 50)}`;
    const rest = isUser && random() < 0.2 ? id : String(Math.floor(random() * 100));
    return {
      principal: isUser ? `user:${id}` : `service:${id}`,
      id,
      roles: isUser ? rolesOf(id) : [],
      area,
      action: `${area}:${pick(VERBS)}`,
      rest,
      resource: `${area}/${rest}`,
      ip: random() < 0.5 ? '10.1.2.3' : '192.168.1.1',
    };
  });
}

/** @param {string} s */
const q = (s) => JSON.stringify(s);

/**
 * `users:read` → `['users', 'read']`.
 * @param {string} s
 * @param {string} separator
 * @returns {[string, string]}
 */
function splitOnce(s, separator) {
  const at = s.indexOf(separator);
  if (at < 0) throw new Error(`no ${separator} in ${s}`);
  return [s.slice(0, at), s.slice(at + separator.length)];
}

/**
 * Cedar text: roles are `User in Role`, `${self}` compares the resource's id part with the user's id.
 * @param {WorkloadPolicy[]} policies
 */
export function toCedar(policies) {
  return policies
    .map((p) => {
      const verb = p.effect === 'deny' ? 'forbid' : 'permit';
      const [area, action] = splitOnce(p.actions[0], ':');
      if (p.kind === 'user') {
        const [, rest] = splitOnce(p.resources[0], '/');
        return `@id(${q(p.id)}) ${verb}(principal == User::${q(p.principals[0].slice(5))}, action == Action::${q(p.actions[0])}, resource) when { resource.area == ${q(area)} && resource.rest == ${q(rest)} };`;
      }
      if (p.kind === 'role') {
        return `@id(${q(p.id)}) ${verb}(principal in Role::${q(p.principals[0].slice(5))}, action in Action::${q(`${area}:*`)}, resource) when { resource.area == ${q(area)} };`;
      }
      if (p.kind === 'self') {
        return `@id(${q(p.id)}) ${verb}(principal is User, action == Action::${q(`${area}:${action}`)}, resource) when { resource.area == ${q(area)} && resource.rest == principal.id };`;
      }
      const actions = p.actions.map((a) => `Action::${q(a)}`).join(', ');
      return `@id(${q(p.id)}) ${verb}(principal == Service::${q(p.principals[0].slice(8))}, action in [${actions}], resource) when { ${CIDRS.map((c) => `context.ip.isInRange(ip(${q(c)}))`).join(' || ')} };`;
    })
    .join('\n');
}

/**
 * @param {WorkloadRequest} request
 * @param {string} policySetId
 * @returns {StatefulAuthorizationCall}
 */
export function cedarCall(request, policySetId) {
  const principal = request.principal.startsWith('user:')
    ? { type: 'User', id: request.id }
    : { type: 'Service', id: request.id };
  return {
    principal,
    action: { type: 'Action', id: request.action },
    resource: { type: 'Resource', id: request.resource },
    context: { ip: { __extn: { fn: 'ip', arg: request.ip } } },
    preparsedPolicySetId: policySetId,
    validateRequest: false,
    entities: [
      {
        uid: principal,
        attrs: { id: request.id },
        parents: request.roles.map((r) => ({ type: 'Role', id: r })),
      },
      {
        uid: { type: 'Action', id: request.action },
        attrs: {},
        parents: [{ type: 'Action', id: `${request.area}:*` }],
      },
      {
        uid: { type: 'Resource', id: request.resource },
        attrs: { area: request.area, rest: request.rest },
        parents: [],
      },
    ],
  };
}

export const CASBIN_MODEL = `
[request_definition]
r = sub, id, obj, act, ip

[policy_definition]
p = sub, obj, act, ipnet, eft

[role_definition]
g = _, _

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = (g(r.sub, p.sub) || (p.sub == "user:self" && r.obj == p.obj + r.id && regexMatch(r.sub, "^user:"))) && (p.sub == "user:self" || keyMatch(r.obj, p.obj)) && keyMatch(r.act, p.act) && (p.ipnet == "*" || ipMatch(r.ip, p.ipnet))
`;

/**
 * casbin rules: one line per (principal, action, resource, CIDR).
 * @param {WorkloadPolicy[]} policies
 */
export function toCasbin(policies) {
  /** @type {string[][]} */
  const rules = [];
  for (const p of policies) {
    for (const action of p.actions) {
      for (const resource of p.resources) {
        const sub = p.kind === 'self' ? 'user:self' : p.principals[0];
        const obj = p.kind === 'self' ? resource.replace('${self}', '') : resource;
        for (const ipnet of p.conditions ? CIDRS : ['*'])
          rules.push([sub, obj, action, ipnet, p.effect]);
      }
    }
  }
  return rules;
}

const DEPARTMENTS = ['sales', 'support', 'security', 'legal'];

/**
 * The same policies with attribute conditions on every tenth, in turn on the resource
 * (`status` not `archived`) and on the principal (`metadata.department` in two of four).
 * @param {WorkloadPolicy[]} policies
 * @returns {PolicyDefinition[]}
 */
export function withAttributeConditions(policies) {
  return policies.map((policy, i) =>
    i % 10 !== 0
      ? policy
      : {
          ...policy,
          conditions: {
            ...policy.conditions,
            attributes:
              i % 20 === 0
                ? { 'resource.status': { notEquals: 'archived' } }
                : { 'principal.metadata.department': { in: ['sales', 'support'] } },
          },
        },
  );
}

/**
 * The attributes a request of the mix carries: a department, and a resource status that is
 * `archived` one time in five.
 * @param {number} count
 */
export function makeRequestAttributes(count, random = seeded(11)) {
  return Array.from({ length: count }, () => ({
    principal: { metadata: { department: cyclic(DEPARTMENTS, Math.floor(random() * 4)) } },
    resource: { status: random() < 0.2 ? 'archived' : 'open' },
  }));
}
