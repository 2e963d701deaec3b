import { describe, expect, it } from 'vitest';
import { PolicyIndex } from '../src/index.js';
import type { PolicyDefinition } from '../src/types.js';

let n = 0;
function policy(p: Partial<PolicyDefinition>): PolicyDefinition {
  n++;
  return {
    id: `pol_${String(n).padStart(26, '0')}`,
    name: p.name ?? `p${n}`,
    effect: 'allow',
    principals: ['*'],
    actions: ['*'],
    resources: ['*'],
    ...p,
  };
}

const decide = (policies: PolicyDefinition[], request: Parameters<PolicyIndex['evaluate']>[0]) =>
  new PolicyIndex(policies).evaluate(request);

describe('PolicyIndex.evaluate: decisions', () => {
  it('denies implicitly when nothing matches, with no matched policies', () => {
    const d = decide([policy({ principals: ['user:bob'] })], {
      principal: 'user:ada',
      action: 'users:read',
      resource: 'users/1',
    });
    expect(d).toEqual({
      allowed: false,
      effect: 'deny',
      decision: 'implicit_deny',
      matchedPolicies: [],
    });
  });

  it('allows when an allow matches', () => {
    const p = policy({ principals: ['user:ada'], actions: ['users:read'], resources: ['users/1'] });
    const d = decide([p], { principal: 'user:ada', action: 'users:read', resource: 'users/1' });
    expect(d).toEqual({
      allowed: true,
      effect: 'allow',
      decision: 'allow',
      matchedPolicies: [{ id: p.id, name: p.name, effect: 'allow' }],
    });
  });

  it('lets one matching deny win over any number of allows, and lists them all', () => {
    const allows = Array.from({ length: 50 }, () => policy({ principals: ['user:ada'] }));
    const deny = policy({ effect: 'deny', principals: ['*'], actions: ['users:delete'] });
    const d = decide([...allows, deny], {
      principal: 'user:ada',
      action: 'users:delete',
      resource: 'users/1',
    });
    expect(d.allowed).toBe(false);
    expect(d.effect).toBe('deny');
    expect(d.decision).toBe('explicit_deny');
    expect(d.matchedPolicies).toHaveLength(51);
    expect(d.matchedPolicies.filter((m) => m.effect === 'deny')).toEqual([
      { id: deny.id, name: deny.name, effect: 'deny' },
    ]);
  });

  it('a deny that does not match changes nothing', () => {
    const d = decide(
      [policy({ principals: ['user:ada'] }), policy({ effect: 'deny', actions: ['users:delete'] })],
      { principal: 'user:ada', action: 'users:read', resource: 'users/1' },
    );
    expect(d.decision).toBe('allow');
  });
});

describe('PolicyIndex.evaluate: principals', () => {
  it('matches principals case-sensitively and exactly', () => {
    const policies = [policy({ principals: ['user:Ada'] })];
    expect(decide(policies, { principal: 'user:ada', action: 'a:b', resource: 'x' }).allowed).toBe(
      false,
    );
    expect(decide(policies, { principal: 'user:Ada', action: 'a:b', resource: 'x' }).allowed).toBe(
      true,
    );
    expect(decide(policies, { principal: 'user:Ada2', action: 'a:b', resource: 'x' }).allowed).toBe(
      false,
    );
  });

  it('expands a user principal through its roles', () => {
    const policies = [policy({ principals: ['role:auditor'], actions: ['logs:list'] })];
    const request = { principal: 'user:ada', action: 'logs:list', resource: 'logs' };
    expect(decide(policies, request).allowed).toBe(false);
    expect(decide(policies, { ...request, roles: ['auditor'] }).allowed).toBe(true);
  });

  it('matches `*` for anyone and `user:${self}` for users only', () => {
    const self = [policy({ principals: ['user:${self}'] })];
    expect(decide(self, { principal: 'user:ada', action: 'a:b', resource: 'x' }).allowed).toBe(
      true,
    );
    expect(decide(self, { principal: 'service:ci', action: 'a:b', resource: 'x' }).allowed).toBe(
      false,
    );
    expect(decide(self, { principal: 'role:ada', action: 'a:b', resource: 'x' }).allowed).toBe(
      false,
    );
    const anyone = [policy({ principals: ['*'] })];
    expect(decide(anyone, { principal: 'service:ci', action: 'a:b', resource: 'x' }).allowed).toBe(
      true,
    );
  });
});

describe('PolicyIndex.evaluate: actions and resources', () => {
  it('matches actions case-insensitively, with `*` inside a pattern', () => {
    const policies = [policy({ actions: ['Users:*'] })];
    expect(
      decide(policies, { principal: 'user:a', action: 'users:READ', resource: 'x' }).allowed,
    ).toBe(true);
    expect(
      decide(policies, { principal: 'user:a', action: 'policies:read', resource: 'x' }).allowed,
    ).toBe(false);
    const mid = [policy({ actions: ['*:read'] })];
    expect(decide(mid, { principal: 'user:a', action: 'logs:read', resource: 'x' }).allowed).toBe(
      true,
    );
    expect(decide(mid, { principal: 'user:a', action: 'logs:write', resource: 'x' }).allowed).toBe(
      false,
    );
  });

  it('matches resources case-sensitively; `*` spans `/`', () => {
    const policies = [policy({ resources: ['documents/*'] })];
    const at = (resource: string) =>
      decide(policies, { principal: 'user:a', action: 'a:b', resource }).allowed;
    expect(at('documents/1/v/2')).toBe(true);
    expect(at('documents/')).toBe(true);
    expect(at('Documents/1')).toBe(false);
    expect(at('documents')).toBe(false);
    const middle = [policy({ resources: ['users/*/keys/*'] })];
    expect(
      decide(middle, { principal: 'user:a', action: 'a:b', resource: 'users/1/keys/2' }).allowed,
    ).toBe(true);
    expect(
      decide(middle, { principal: 'user:a', action: 'a:b', resource: 'users/1/roles/2' }).allowed,
    ).toBe(false);
  });

  it('treats every other character of a pattern literally', () => {
    const policies = [policy({ resources: ['a.b/(c)?+'] })];
    expect(
      decide(policies, { principal: 'user:a', action: 'a:b', resource: 'a.b/(c)?+' }).allowed,
    ).toBe(true);
    expect(
      decide(policies, { principal: 'user:a', action: 'a:b', resource: 'axb/(c)?+' }).allowed,
    ).toBe(false);
  });
});

describe('PolicyIndex.evaluate: ${self}', () => {
  const own = [
    policy({ principals: ['user:${self}'], actions: ['users:read'], resources: ['users/${self}'] }),
  ];

  it('binds ${self} to the principal id', () => {
    expect(
      decide(own, { principal: 'user:42', action: 'users:read', resource: 'users/42' }).allowed,
    ).toBe(true);
    expect(
      decide(own, { principal: 'user:42', action: 'users:read', resource: 'users/43' }).allowed,
    ).toBe(false);
  });

  it('never lets a ${self} value containing `*` or `/` widen a grant', () => {
    expect(
      decide(own, { principal: 'user:*', action: 'users:read', resource: 'users/43' }).allowed,
    ).toBe(false);
    expect(
      decide(own, { principal: 'user:*', action: 'users:read', resource: 'users/*' }).allowed,
    ).toBe(false);
    expect(
      decide(own, { principal: 'user:1/2', action: 'users:read', resource: 'users/1/2' }).allowed,
    ).toBe(false);
    const sub = [policy({ principals: ['user:${self}'], resources: ['users/${self}/*'] })];
    expect(
      decide(sub, { principal: 'user:4*', action: 'a:b', resource: 'users/42/x' }).allowed,
    ).toBe(false);
    expect(
      decide(sub, { principal: 'user:42', action: 'a:b', resource: 'users/42/x' }).allowed,
    ).toBe(true);
  });
});

describe('PolicyIndex.evaluate: conditions', () => {
  const office = policy({ conditions: { ip: { allowlist: ['10.0.0.0/8', '2001:db8::/32'] } } });

  it('applies an ip.allowlist to IPv4, IPv6 and IPv4-mapped IPv6', () => {
    const at = (ip?: string) =>
      decide([office], { principal: 'user:a', action: 'a:b', resource: 'x', context: { ip } })
        .allowed;
    expect(at('10.200.1.1')).toBe(true);
    expect(at('11.0.0.1')).toBe(false);
    expect(at('::ffff:10.1.2.3')).toBe(true);
    expect(at('2001:db8:1::5')).toBe(true);
    expect(at('2001:db9::1')).toBe(false);
  });

  it('does not apply a policy with an ip condition to a request without ip', () => {
    expect(decide([office], { principal: 'user:a', action: 'a:b', resource: 'x' }).decision).toBe(
      'implicit_deny',
    );
    const deny = policy({ effect: 'deny', conditions: { ip: { denylist: ['192.168.0.0/16'] } } });
    // A deny "unless from 192.168/16" holds only when the ip is known and outside it.
    expect(decide([deny], { principal: 'user:a', action: 'a:b', resource: 'x' }).decision).toBe(
      'implicit_deny',
    );
    expect(
      decide([deny], {
        principal: 'user:a',
        action: 'a:b',
        resource: 'x',
        context: { ip: '8.8.8.8' },
      }).decision,
    ).toBe('explicit_deny');
    expect(
      decide([deny], {
        principal: 'user:a',
        action: 'a:b',
        resource: 'x',
        context: { ip: '192.168.1.1' },
      }).decision,
    ).toBe('implicit_deny');
  });

  it('checks time.notBefore and time.notAfter against context.time', () => {
    const window = [
      policy({
        conditions: {
          time: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2026-12-31T23:59:59Z' },
        },
      }),
    ];
    const at = (time: string) =>
      decide(window, {
        principal: 'user:a',
        action: 'a:b',
        resource: 'x',
        context: { time: new Date(time) },
      }).allowed;
    expect(at('2026-06-01T00:00:00Z')).toBe(true);
    expect(at('2025-12-31T23:59:59Z')).toBe(false);
    expect(at('2027-01-01T00:00:00Z')).toBe(false);
    expect(at('2026-01-01T00:00:00Z')).toBe(true);
  });
});

describe('PolicyIndex.evaluate: explain', () => {
  it('explains each policy of the principal and names missing context keys', () => {
    const a = policy({
      name: 'a-office',
      principals: ['user:ada'],
      conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
    });
    const b = policy({ name: 'b-other-action', principals: ['user:ada'], actions: ['logs:list'] });
    const c = policy({ name: 'c-other-user', principals: ['user:bob'] });
    const d = decide([a, b, c], {
      principal: 'user:ada',
      action: 'users:read',
      resource: 'users/1',
      explain: true,
    });
    expect(d.decision).toBe('implicit_deny');
    expect(d.missingContextKeys).toEqual(['ip']);
    expect(d.explanation).toEqual([
      {
        policyId: a.id,
        policyName: 'a-office',
        effect: 'allow',
        matched: false,
        principal: true,
        action: true,
        resource: true,
        conditions: { 'ip.allowlist': false },
      },
      {
        policyId: b.id,
        policyName: 'b-other-action',
        effect: 'allow',
        matched: false,
        principal: true,
        action: false,
        resource: true,
        conditions: {},
      },
    ]);
  });

  it('gives the same decision with and without explain', () => {
    const policies = [
      policy({ principals: ['role:x'] }),
      policy({ effect: 'deny', resources: ['secret/*'] }),
    ];
    for (const resource of ['secret/1', 'public/1']) {
      const request = { principal: 'user:a', roles: ['x'], action: 'a:b', resource };
      const plain = decide(policies, request);
      const { explanation, missingContextKeys, ...explained } = decide(policies, {
        ...request,
        explain: true,
      });
      expect(explained).toEqual(plain);
      expect(explanation?.length).toBe(2);
      expect(missingContextKeys).toEqual([]);
    }
  });
});
