import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, createUser, failure, uniqueName } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('policies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const simulate = async (body: {
    principal: string;
    action: string;
    resource: string;
    context?: { ip?: string; time?: string };
    explain?: boolean;
  }) => {
    const { data } = await server.client.POST('/v1/policies/simulate', { body });
    if (!data) throw new Error('no data');
    return data.data;
  };

  it('creates, gets, lists, updates and deletes a policy with the interface fields', async () => {
    const name = uniqueName('crud');
    const created = await createPolicy(server.client, {
      name,
      description: 'desc',
      principals: ['role:crud'],
      actions: ['users:read'],
      resources: ['users/*'],
      conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
    });
    expect(created).toMatchObject({
      name,
      description: 'desc',
      effect: 'allow',
      conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
    });
    expect(created.id).toMatch(/^pol_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(created.updatedAt).toBe(created.createdAt);

    const got = await server.client.GET('/v1/policies/{id}', {
      params: { path: { id: created.id } },
    });
    expect(got.data?.data).toEqual(created);

    const listed = [];
    for await (const p of server.client.paginate('/v1/policies', { limit: 100 })) listed.push(p);
    const item = listed.find((p) => p.id === created.id);
    expect(item && Object.keys(item).sort()).toEqual([
      'actions',
      'createdAt',
      'effect',
      'id',
      'name',
      'principals',
      'resources',
    ]);

    const patched = await server.client.PATCH('/v1/policies/{id}', {
      params: { path: { id: created.id } },
      body: { description: null, conditions: null, actions: ['users:*'] },
    });
    expect(patched.data?.data).not.toHaveProperty('description');
    expect(patched.data?.data).not.toHaveProperty('conditions');
    expect(patched.data?.data.actions).toEqual(['users:*']);

    const del = await fetch(`${server.url}/v1/policies/${created.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(del.status).toBe(204);
    expect(
      await failure(
        server.client.GET('/v1/policies/{id}', { params: { path: { id: created.id } } }),
      ),
    ).toMatchObject({
      status: 404,
    });
    expect(
      await failure(
        server.client.DELETE('/v1/policies/{id}', { params: { path: { id: created.id } } }),
      ),
    ).toMatchObject({
      status: 404,
    });
  });

  it('refuses a duplicate name (409) on create and rename', async () => {
    const a = await createPolicy(server.client, {});
    const b = await createPolicy(server.client, {});
    expect(await failure(createPolicy(server.client, { name: a.name }))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect(
      await failure(
        server.client.PATCH('/v1/policies/{id}', {
          params: { path: { id: b.id } },
          body: { name: a.name },
        }),
      ),
    ).toMatchObject({ status: 409 });
  });

  it('validates policies when written: principals, conditions, CIDRs', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ principals: ['admin'] }, 'body.principals[0]'],
      [{ principals: ['user:*'] }, 'body.principals[0]'],
      [{ conditions: { ip: { allowlist: ['10.0.0.0/33'] } } }, 'body.conditions.ip.allowlist[0]'],
      [{ conditions: { ip: { allowlist: ['nope'] } } }, 'body.conditions.ip.allowlist[0]'],
      [{ conditions: { geo: { country: 'DE' } } }, 'body.conditions.geo'],
      [
        { conditions: { ip: { allowlist: ['10.0.0.0/8'], blocklist: [] } } },
        'body.conditions.ip.blocklist',
      ],
      [{ effect: 'maybe' }, 'body.effect'],
      [{ actions: [] }, 'body.actions'],
    ];
    for (const [patch, field] of cases) {
      const result = await failure(createPolicy(server.client, patch as never));
      expect(result.status, JSON.stringify(patch)).toBe(400);
      expect(
        result.details.map((d) => d.field),
        JSON.stringify(patch),
      ).toContain(field);
    }
  });

  it('names every problem of a policy in one 400: a bad pattern does not hide a bad CIDR', async () => {
    const both = await failure(
      createPolicy(server.client, {
        actions: ['users read'],
        conditions: {
          ip: { allowlist: ['10.0.0.300'] },
          time: { notBefore: '2027-01-02T00:00:00Z', notAfter: '2027-01-01T00:00:00Z' },
        },
      } as never),
    );
    expect(both.status).toBe(400);
    expect(both.details.map((d) => d.field).sort()).toEqual([
      'body.actions[0]',
      'body.conditions.ip.allowlist[0]',
      'body.conditions.time',
    ]);
    // Conditions the schema refuses are not checked further: their shape is not a policy's.
    const shape = await failure(
      createPolicy(server.client, {
        actions: ['users read'],
        conditions: { ip: { allowlist: [7, 'nope'] } },
      } as never),
    );
    expect(shape.details.map((d) => d.field).sort()).toEqual([
      'body.actions[0]',
      'body.conditions.ip.allowlist[0]',
    ]);
    const id = (await createPolicy(server.client, {})).id;
    const patched = await failure(
      server.client.PATCH('/v1/policies/{id}', {
        params: { path: { id } },
        body: { effect: 'maybe', conditions: { ip: { denylist: ['nope'] } } } as never,
      }),
    );
    expect(patched.details.map((d) => d.field).sort()).toEqual([
      'body.conditions.ip.denylist[0]',
      'body.effect',
    ]);
  });

  it('simulates: implicit deny, allow, explicit deny overriding allows', async () => {
    const area = `sim${Date.now()}`;
    expect(
      await simulate({ principal: 'service:x', action: `${area}:read`, resource: 'r' }),
    ).toMatchObject({
      allowed: false,
      effect: 'deny',
      decision: 'implicit_deny',
      matchedPolicies: [],
    });
    const allow = await createPolicy(server.client, {
      principals: ['service:x'],
      actions: [`${area}:*`],
      resources: ['*'],
    });
    const allowed = await simulate({
      principal: 'service:x',
      action: `${area}:READ`,
      resource: 'r',
    });
    expect(allowed).toMatchObject({
      allowed: true,
      effect: 'allow',
      decision: 'allow',
      matchedPolicies: [{ id: allow.id, name: allow.name, effect: 'allow' }],
    });
    expect(Number.isInteger(allowed.evaluationTimeMs)).toBe(true);
    expect(allowed).not.toHaveProperty('explanation');
    const deny = await createPolicy(server.client, {
      effect: 'deny',
      principals: ['*'],
      actions: [`${area}:read`],
      resources: ['r'],
    });
    const denied = await simulate({
      principal: 'service:x',
      action: `${area}:read`,
      resource: 'r',
    });
    expect(denied).toMatchObject({ allowed: false, effect: 'deny', decision: 'explicit_deny' });
    expect(denied.matchedPolicies.map((m) => m.id).sort()).toEqual([allow.id, deny.id].sort());
  });

  it('simulates roles from the user record, ${self}, ip conditions and explain', async () => {
    const area = `self${Date.now()}`;
    const user = await createUser(server.client, { roles: [`${area}-role`] });
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: [`${area}:read`],
      resources: [`${area}/\${self}`],
    });
    await createPolicy(server.client, {
      principals: [`role:${area}-role`],
      actions: [`${area}:write`],
      resources: [`${area}/*`],
      conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
    });
    const principal = `user:${user.id}`;
    expect(
      (await simulate({ principal, action: `${area}:read`, resource: `${area}/${user.id}` }))
        .allowed,
    ).toBe(true);
    expect(
      (await simulate({ principal, action: `${area}:read`, resource: `${area}/user_other` }))
        .allowed,
    ).toBe(false);
    expect(
      (
        await simulate({
          principal,
          action: `${area}:write`,
          resource: `${area}/x`,
          context: { ip: '10.9.9.9' },
        })
      ).allowed,
    ).toBe(true);
    const noIp = await simulate({
      principal,
      action: `${area}:write`,
      resource: `${area}/x`,
      explain: true,
    });
    expect(noIp.allowed).toBe(false);
    expect(noIp.missingContextKeys).toEqual(['ip']);
    expect(noIp.explanation?.find((e) => e.conditions?.['ip.allowlist'] === false)).toBeDefined();
  });

  it('rejects a bad simulate context (ip, time) with 400; other keys are for context.* attributes', async () => {
    expect(
      await failure(
        server.client.POST('/v1/policies/simulate', {
          body: { principal: 'user:a', action: 'a:b', resource: 'r', context: { ip: 'nope' } },
        }),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await failure(
        server.client.POST('/v1/policies/simulate', {
          body: {
            principal: 'user:a',
            action: 'a:b',
            resource: 'r',
            context: { ip: 5, time: 'soon' } as never,
          },
        }),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      (
        await server.client.POST('/v1/policies/simulate', {
          body: { principal: 'user:a', action: 'a:b', resource: 'r', context: { mfa: true } },
        })
      ).data?.data.allowed,
    ).toBe(false);
    expect(
      await failure(
        server.client.POST('/v1/policies/simulate', {
          body: { principal: 'nobody', action: 'a:b', resource: 'r' },
        }),
      ),
    ).toMatchObject({
      status: 400,
    });
  });

  it('applies a change of the roles of a user to the very next decision', async () => {
    const area = `roles${Date.now()}`;
    const user = await createUser(server.client, { roles: ['before'] });
    await createPolicy(server.client, {
      principals: [`role:${area}`],
      actions: [`${area}:go`],
      resources: ['*'],
    });
    const request = { principal: `user:${user.id}`, action: `${area}:go`, resource: 'r' };
    expect((await simulate(request)).allowed).toBe(false);
    await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: user.id } },
      body: { roles: [area] },
    });
    expect((await simulate(request)).allowed).toBe(true);
    await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: user.id } },
      body: { roles: [] },
    });
    expect((await simulate(request)).allowed).toBe(false);
  });

  it('applies a change or deletion to the very next decision', async () => {
    const area = `next${Date.now()}`;
    const p = await createPolicy(server.client, {
      principals: ['service:n'],
      actions: [`${area}:go`],
      resources: ['*'],
    });
    const request = { principal: 'service:n', action: `${area}:go`, resource: 'r' };
    expect((await simulate(request)).allowed).toBe(true);
    await server.client.PATCH('/v1/policies/{id}', {
      params: { path: { id: p.id } },
      body: { effect: 'deny' },
    });
    expect((await simulate(request)).decision).toBe('explicit_deny');
    await server.client.DELETE('/v1/policies/{id}', { params: { path: { id: p.id } } });
    expect((await simulate(request)).decision).toBe('implicit_deny');
  });

  describe('batch and draft simulation', () => {
    const batch = (body: Record<string, unknown>) =>
      server.client.POST('/v1/policies/simulate/batch', { body: body as never });
    const policyCount = async () =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM policies'))[0]?.n;

    it('answers every check in order against draft policies alone, and writes nothing', async () => {
      const area = uniqueName('batch').replace(/-/g, '_');
      await createPolicy(server.client, {
        principals: ['role:support'],
        actions: [`${area}:grant`],
        resources: ['roles/admin'],
      });
      const before = await policyCount();
      const { data } = await batch({
        checks: [
          { principal: 'role:support', action: `${area}:grant`, resource: 'roles/viewer' },
          { principal: 'role:support', action: `${area}:grant`, resource: 'roles/admin' },
        ],
        draftPolicies: [
          {
            name: 'support-grants-viewer',
            effect: 'allow',
            principals: ['role:support'],
            actions: [`${area}:grant`],
            resources: ['roles/viewer'],
          },
        ],
        useStored: false,
      });
      const results = data?.data.results ?? [];
      expect(results.map((r) => r.decision)).toEqual(['allow', 'implicit_deny']);
      expect(results[0]?.matchedPolicies).toEqual([
        { id: 'draft_0', name: 'support-grants-viewer', effect: 'allow' },
      ]);
      expect(await policyCount()).toBe(before);
    });

    it('evaluates drafts beside the stored policies (deny overrides) without changing the stored set', async () => {
      const area = uniqueName('overlay').replace(/-/g, '_');
      const stored = await createPolicy(server.client, {
        principals: ['role:dev'],
        actions: [`${area}:read`],
        resources: ['docs/*'],
      });
      const check = { principal: 'role:dev', action: `${area}:read`, resource: 'docs/1' };
      const { data } = await batch({
        checks: [check],
        draftPolicies: [
          {
            name: 'no-docs',
            effect: 'deny',
            principals: ['role:dev'],
            actions: ['*'],
            resources: ['docs/*'],
          },
        ],
        explain: true,
      });
      const result = data?.data.results[0];
      expect(result?.decision).toBe('explicit_deny');
      expect(result?.matchedPolicies.map((p) => p.id)).toEqual([stored.id, 'draft_0']);
      expect(result?.explanation?.map((e) => e.policyId)).toContain('draft_0');
      // The cached index of stored policies never saw the draft.
      expect((await simulate(check)).decision).toBe('allow');
    });

    it('refuses invalid drafts and checks with 400 naming each, and more than 100 checks', async () => {
      const check = { principal: 'role:dev', action: 'a:b', resource: 'x' };
      const draft = {
        name: 'd',
        effect: 'allow',
        principals: ['*'],
        actions: ['a:b'],
        resources: ['x'],
      };
      const bad = await failure(
        batch({
          checks: [check, { ...check, context: { ip: 'not-an-ip' } }],
          draftPolicies: [
            draft,
            { ...draft, conditions: { ip: { allowlist: ['10.0.0.0/33'] } } },
            { ...draft, name: '' },
          ],
        }),
      );
      expect(bad.status).toBe(400);
      // The schema's problem does not hide the others.
      expect(bad.details.map((d) => d.field).sort()).toEqual([
        'body.checks[1].context.ip',
        'body.draftPolicies[1].conditions.ip.allowlist[0]',
        'body.draftPolicies[2].name',
      ]);
      const semantic = await failure(
        batch({
          checks: [check, { ...check, context: { ip: 'not-an-ip' } }],
          draftPolicies: [draft, { ...draft, conditions: { ip: { allowlist: ['10.0.0.0/33'] } } }],
        }),
      );
      expect(semantic.details.map((d) => d.field).sort()).toEqual([
        'body.checks[1].context.ip',
        'body.draftPolicies[1].conditions.ip.allowlist[0]',
      ]);
      const tooMany = await failure(batch({ checks: Array(101).fill(check) }));
      expect(tooMany.status).toBe(400);
      const none = await failure(batch({ checks: [] }));
      expect(none.status).toBe(400);
    });
  });
});
