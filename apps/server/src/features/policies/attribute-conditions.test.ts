import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKey,
  createPolicy,
  createUser,
  failure,
  uniqueName,
} from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

describe('attribute conditions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const simulate = async (body: Record<string, unknown>) => {
    const { data } = await server.client.POST('/v1/policies/simulate', { body: body as never });
    if (!data) throw new Error('no data');
    return data.data;
  };
  const fields = async (promise: Promise<unknown>) => {
    const result = await failure(promise);
    expect(result.status).toBe(400);
    return result.details.map((d) => d.field).sort();
  };

  it('refuses bad attribute conditions on create, PATCH and drafts, naming the path, changing nothing', async () => {
    const create = (attributes: unknown) =>
      createPolicy(server.client, { conditions: { attributes } as never });
    expect(await fields(create({ 'resource.__proto__.x': { equals: 1 } }))).toEqual([
      'body.conditions.attributes.resource.__proto__.x',
    ]);
    expect(await fields(create({ 'resource.constructor': { exists: true } }))).toEqual([
      'body.conditions.attributes.resource.constructor',
    ]);
    expect(await fields(create({ 'subject.id': { equals: 1 } }))).toContain(
      'body.conditions.attributes.subject.id',
    );
    expect(await fields(create({ 'resource.a': { like: 'x' } }))).toContain(
      'body.conditions.attributes.resource.a.like',
    );
    expect(await fields(create({ 'resource.a': {} }))).toContain(
      'body.conditions.attributes.resource.a',
    );
    expect(await fields(create({ 'resource.a': { equals: 1, notEquals: 2 } }))).toContain(
      'body.conditions.attributes.resource.a',
    );
    expect(await fields(create({ 'resource.a': { lessThan: 'soon' } }))).toEqual([
      'body.conditions.attributes.resource.a.lessThan',
    ]);
    expect(await fields(create({ 'resource.a': { equals: { x: 1 } } }))).toContain(
      'body.conditions.attributes.resource.a.equals',
    );
    expect(
      await fields(create({ 'resource.a': { in: Array.from({ length: 101 }, (_, i) => i) } })),
    ).toContain('body.conditions.attributes.resource.a.in');

    const policy = await createPolicy(server.client, {
      conditions: { attributes: { 'resource.status': { equals: 'open' } } },
    });
    expect(policy.conditions).toEqual({ attributes: { 'resource.status': { equals: 'open' } } });
    expect(
      await fields(
        server.client.PATCH('/v1/policies/{id}', {
          params: { path: { id: policy.id } },
          body: { conditions: { attributes: { 'resource.status': { startsWith: 3 } } } } as never,
        }),
      ),
    ).toContain('body.conditions.attributes.resource.status.startsWith');
    const unchanged = await server.client.GET('/v1/policies/{id}', {
      params: { path: { id: policy.id } },
    });
    expect(unchanged.data?.data.conditions).toEqual(policy.conditions);

    const draft = {
      name: 'd',
      effect: 'allow',
      principals: ['*'],
      actions: ['a:b'],
      resources: ['x'],
      conditions: { attributes: { 'resource.x.prototype': { exists: true } } },
    };
    expect(
      await fields(
        server.client.POST('/v1/policies/simulate/batch', {
          body: {
            checks: [{ principal: 'user:x', action: 'a:b', resource: 'x' }],
            draftPolicies: [draft],
          } as never,
        }),
      ),
    ).toEqual(['body.draftPolicies[0].conditions.attributes.resource.x.prototype']);
  });

  it('owner only: ${self} against the resource owner, explained, with missing paths', async () => {
    const action = `docs${Date.now()}:update`;
    await createPolicy(server.client, {
      name: uniqueName('owner-only'),
      principals: ['user:${self}'],
      actions: [action],
      resources: ['docs/*'],
      conditions: { attributes: { 'resource.owner': { equals: '${self}' } } },
    });
    const check = { principal: 'user:ada', action, resource: 'docs/1' };
    expect(await simulate({ ...check, attributes: { resource: { owner: 'ada' } } })).toMatchObject({
      allowed: true,
      decision: 'allow',
    });
    expect(await simulate({ ...check, attributes: { resource: { owner: 'bob' } } })).toMatchObject({
      allowed: false,
      decision: 'implicit_deny',
    });
    // The request cannot name itself owner with the placeholder: it is plain text there.
    expect(
      await simulate({ ...check, attributes: { resource: { owner: '${self}' } } }),
    ).toMatchObject({ allowed: false });
    const explained = await simulate({ ...check, explain: true });
    expect(explained.allowed).toBe(false);
    expect(explained.explanation?.[0]?.conditions).toEqual({ 'attributes.resource.owner': false });
    expect(explained.missingContextKeys).toEqual(['resource.owner']);
  });

  it('never converts types, and reads context keys beyond ip and time', async () => {
    const action = `types${Date.now()}:read`;
    await createPolicy(server.client, {
      principals: ['service:types'],
      actions: [action],
      resources: ['*'],
      conditions: {
        attributes: { 'resource.level': { lessThan: 3 }, 'context.tenant': { equals: 'acme' } },
      },
    });
    const check = { principal: 'service:types', action, resource: 'r' };
    const allowed = async (level: unknown, tenant: unknown) =>
      (await simulate({ ...check, attributes: { resource: { level } }, context: { tenant } }))
        .allowed;
    expect(await allowed(2, 'acme')).toBe(true);
    expect(await allowed('2', 'acme')).toBe(false);
    expect(await allowed(2, 'ACME')).toBe(false);
    expect(await allowed(3, 'acme')).toBe(false);
  });

  it("a stored user's attributes win over the request's, for simulate and for the API itself", async () => {
    const stamp = Date.now();
    const ada = await createUser(server.client, {
      roles: [`staff-${stamp}`],
      metadata: { department: 'security' },
    });
    const action = `reports${stamp}:read`;
    await createPolicy(server.client, {
      principals: [`role:staff-${stamp}`],
      actions: [action, 'users:list'],
      resources: ['*'],
      conditions: {
        attributes: {
          'principal.metadata.department': { equals: 'security' },
          'principal.email': { equals: ada.email },
        },
      },
    });
    const check = { principal: `user:${ada.id}`, action, resource: 'reports/1' };
    const forged = { principal: { metadata: { department: 'sales' }, email: 'x@example.com' } };
    expect(await simulate({ ...check, attributes: forged })).toMatchObject({ allowed: true });
    // An unknown user has nothing stored: its request attributes are all there is.
    expect(
      await simulate({
        ...check,
        principal: 'user:nobody',
        attributes: { principal: { metadata: { department: 'security' }, email: ada.email } },
      }),
    ).toMatchObject({ allowed: false });

    const key = await createKey(server.client, `user:${ada.id}`);
    const asAda = server.clientWith(key.secret);
    expect(
      (await asAda.GET('/v1/users', { params: { query: { limit: 1 } } })).response.status,
    ).toBe(200);
    await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: ada.id } },
      body: { metadata: { department: 'sales' } },
    });
    expect(
      await failure(asAda.GET('/v1/users', { params: { query: { limit: 1 } } })),
    ).toMatchObject({ status: 403 });
    expect(await simulate(check)).toMatchObject({ allowed: false });
  });

  it('archived is read-only except for admins, and a deny on an attribute overrides all', async () => {
    const stamp = Date.now();
    const area = `records${stamp}`;
    await createPolicy(server.client, {
      principals: ['*'],
      actions: [`${area}:read`],
      resources: [`${area}/*`],
    });
    await createPolicy(server.client, {
      principals: ['*'],
      actions: [`${area}:update`],
      resources: [`${area}/*`],
      conditions: { attributes: { 'resource.status': { notEquals: 'archived' } } },
    });
    await createPolicy(server.client, {
      principals: [`role:admin-${stamp}`],
      actions: [`${area}:update`],
      resources: [`${area}/*`],
    });
    await createPolicy(server.client, {
      effect: 'deny',
      principals: ['*'],
      actions: [`${area}:*`],
      resources: [`${area}/*`],
      conditions: { attributes: { 'resource.legalHold': { equals: true } } },
    });
    const user = await createUser(server.client);
    const admin = await createUser(server.client, { roles: [`admin-${stamp}`] });
    const decide = (principal: string, action: string, resource: Record<string, unknown>) =>
      simulate({
        principal,
        action: `${area}:${action}`,
        resource: `${area}/1`,
        attributes: { resource },
      });
    expect(await decide(`user:${user.id}`, 'update', { status: 'open' })).toMatchObject({
      allowed: true,
    });
    expect(await decide(`user:${user.id}`, 'update', { status: 'archived' })).toMatchObject({
      allowed: false,
      decision: 'implicit_deny',
    });
    expect((await decide(`user:${user.id}`, 'read', { status: 'archived' })).allowed).toBe(true);
    expect((await decide(`user:${admin.id}`, 'update', { status: 'archived' })).allowed).toBe(true);
    expect(
      await decide(`user:${admin.id}`, 'update', { status: 'open', legalHold: true }),
    ).toMatchObject({ allowed: false, decision: 'explicit_deny' });
    expect((await decide(`user:${admin.id}`, 'update', { legalHold: 'true' })).allowed).toBe(true);
  });

  it('bounds request attributes and context: 16 KiB and 8 levels, named', async () => {
    const check = { principal: 'service:bounds', action: 'a:b', resource: 'r' };
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 7; i++) deep = { d: deep };
    expect(
      await fields(
        server.client.POST('/v1/policies/simulate', {
          body: { ...check, attributes: { resource: deep } } as never,
        }),
      ),
    ).toEqual(['body.attributes']);
    expect(
      await fields(
        server.client.POST('/v1/policies/simulate', {
          body: { ...check, attributes: { resource: { big: 'x'.repeat(16_400) } } } as never,
        }),
      ),
    ).toEqual(['body.attributes']);
    expect(
      await fields(
        server.client.POST('/v1/policies/simulate/batch', {
          body: { checks: [check, { ...check, context: { deep } }] } as never,
        }),
      ),
    ).toEqual(['body.checks[1].context']);
    expect(
      await fields(
        server.client.POST('/v1/policies/simulate', {
          body: { ...check, attributes: { subject: {} } } as never,
        }),
      ),
    ).toEqual(['body.attributes.subject']);
    // Hostile keys inside request attributes are refused like anywhere in a body.
    for (const hostile of [
      '{"resource":{"__proto__":{"status":"open"}}}',
      '{"resource":{"constructor":{"prototype":{"x":1}}}}',
    ]) {
      const res = await fetch(`${server.url}/v1/policies/simulate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body: `{"principal":"service:bounds","action":"a:b","resource":"r","attributes":${hostile}}`,
      });
      expect(res.status, hostile).toBe(400);
    }
    // Seven levels under `attributes` is within the bound.
    let fits: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 5; i++) fits = { d: fits };
    expect((await simulate({ ...check, attributes: { resource: fits } })).allowed).toBe(false);
  });

  it('batch checks take attributes per check', async () => {
    const action = `batch${Date.now()}:read`;
    await createPolicy(server.client, {
      principals: ['*'],
      actions: [action],
      resources: ['*'],
      conditions: { attributes: { 'action.soft': { equals: true } } },
    });
    const check = { principal: 'service:b', action, resource: 'r' };
    const { data } = await server.client.POST('/v1/policies/simulate/batch', {
      body: {
        checks: [
          { ...check, attributes: { action: { soft: true } } },
          { ...check, attributes: { action: { soft: 'true' } } },
          check,
        ],
      },
    });
    expect(data?.data.results.map((r) => r.allowed)).toEqual([true, false, false]);
  });
});
