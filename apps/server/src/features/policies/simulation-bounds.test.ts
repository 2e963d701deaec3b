import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, failure, uniqueName } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { BATCH_LIMITS } from './simulation.js';

/**
 * Issue 20, H2 and L7: glob patterns bounded where policies are written (drafts included),
 * batch simulation bounded in work and in the size of its explanations, and policies named
 * in simulation answers only to callers that may read them.
 */
describe('simulation bounds and visibility', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const policyCount = async () =>
    (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM policies'))[0]?.n;
  const batch = (body: Record<string, unknown>, client = server.client) =>
    client.POST('/v1/policies/simulate/batch', { body: body as never });
  const draft = (resources: string[], actions = ['*']) => ({
    name: 'draft',
    effect: 'allow',
    principals: ['role:bounds'],
    actions,
    resources,
  });
  const check = (resource: string) => ({ principal: 'role:bounds', action: 'docs:read', resource });
  const eightStars = `${'*a'.repeat(8)}${'b'.repeat(240)}`;

  describe('pattern bounds', () => {
    it('accepts a pattern of 256 characters with 8 `*`', async () => {
      expect(eightStars).toHaveLength(256);
      const policy = await createPolicy(server.client, {
        resources: [eightStars],
        actions: ['*:*:*:*:*:*:*:*'],
      });
      expect(policy.resources).toEqual([eightStars]);
    });

    it('refuses longer patterns and more `*` on create, update and in drafts, naming each field', async () => {
      const before = await policyCount();
      const created = await failure(
        createPolicy(server.client, {
          resources: ['ok', 'x'.repeat(257), `${eightStars.slice(2)}**`],
          actions: ['a:b', '*a*b*c*d*e:*f*g*h*'],
        }),
      );
      expect(created.status).toBe(400);
      expect(created.details.map((d) => d.field).sort()).toEqual([
        'body.actions[1]',
        'body.resources[1]',
        'body.resources[2]',
      ]);
      const policy = await createPolicy(server.client, {});
      const updated = await failure(
        server.client.PATCH('/v1/policies/{id}', {
          params: { path: { id: policy.id } },
          body: { resources: ['*'.repeat(9)] },
        }),
      );
      expect(updated.status).toBe(400);
      expect(updated.details).toEqual([
        { field: 'body.resources[0]', message: 'must have no whitespace and at most 8 `*`' },
      ]);
      expect(await policyCount()).toBe((before ?? 0) + 1);

      const drafts = await failure(
        batch({
          checks: [check('docs/1')],
          draftPolicies: [draft(['docs/*']), draft(['docs/*', `*${'a'.repeat(256)}`])],
        }),
      );
      expect(drafts.status).toBe(400);
      expect(drafts.details.map((d) => d.field)).toEqual(['body.draftPolicies[1].resources[1]']);
    });
  });

  describe('batch work', () => {
    // Per check: each resource pattern costs its length plus the resource's.
    const resource = 'r'.repeat(500);
    const pattern = `*${'a'.repeat(98)}*`;
    const cost = (drafts: number, patterns: number, checks: number) =>
      checks * drafts * (patterns * (pattern.length + resource.length) + 1 + 'docs:read'.length);

    it('answers a batch at its work bound and refuses one past it, naming draftPolicies', async () => {
      const patterns = 100;
      const drafts = Math.floor(BATCH_LIMITS.maxWork / cost(1, patterns, 100));
      expect(cost(drafts, patterns, 100)).toBeLessThanOrEqual(BATCH_LIMITS.maxWork);
      const body = (n: number) => ({
        checks: Array.from({ length: 100 }, () => check(resource)),
        draftPolicies: Array.from({ length: n }, () =>
          draft(Array.from({ length: patterns }, () => pattern)),
        ),
        useStored: false,
      });
      const within = await batch(body(drafts));
      expect(within.data?.data.results).toHaveLength(100);
      const past = await failure(batch(body(drafts + 1)));
      expect(past.status).toBe(400);
      expect(past.details.map((d) => d.field)).toEqual(['body.draftPolicies']);
    });
  });

  describe('batch work with ${self}', () => {
    // Each `${self}` stands for the principal's id in every check: 36 of them in a pattern of
    // 254 characters become 9,000 characters to match against a principal of 250.
    const principal = `user:${'a'.repeat(250)}`;
    const pattern = `*${'${self}'.repeat(36)}*`;
    const body = (patternsPerDraft: number[]) => ({
      checks: Array.from({ length: 100 }, () => ({ principal, action: 'a:b', resource: 'b' })),
      draftPolicies: patternsPerDraft.map((patterns) => ({
        name: 'self',
        effect: 'allow',
        principals: ['*'],
        actions: ['*'],
        resources: Array.from({ length: patterns }, () => pattern),
      })),
      useStored: false,
    });

    it('counts each pattern as long as it is once the principal id stands in it', async () => {
      // Counted by the patterns as written, this batch is just under the bound.
      const past = await failure(batch(body([99, 99, 99, 99, 99, 99, 99, 90])));
      expect(past.status).toBe(400);
      expect(past.details.map((d) => d.field)).toEqual(['body.draftPolicies']);
      const small = await batch(body([2]));
      expect(small.data?.data.results).toHaveLength(100);
    });
  });

  describe('explain answers', () => {
    const everything = Array.from({ length: 100 }, (_, i) => ({
      ...draft(['*']),
      name: `draft with a name of some length, number ${i}`,
    }));
    const checks = Array.from({ length: 100 }, (_, i) => check(`docs/${i}`));

    it('refuses explanations past 1 MiB with 400 naming explain, and answers the same batch without explain', async () => {
      const refused = await failure(
        batch({ checks, draftPolicies: everything, useStored: false, explain: true }),
      );
      expect(refused.status).toBe(400);
      expect(refused.details.map((d) => d.field)).toEqual(['body.explain']);
      const plain = await batch({ checks, draftPolicies: everything, useStored: false });
      expect(plain.data?.data.results[99]?.matchedPolicies).toHaveLength(100);
    });

    it('answers explanations within 1 MiB in full', async () => {
      const { data, response } = await batch({
        checks,
        draftPolicies: everything.slice(0, 30),
        useStored: false,
        explain: true,
      });
      expect(data?.data.results[0]?.explanation).toHaveLength(30);
      expect(Number(response.headers.get('content-length'))).toBeLessThan(
        BATCH_LIMITS.maxExplainBytes,
      );
    });
  });

  describe('policies a caller may not read', () => {
    const area = uniqueName('hidden').replace(/-/g, '_');
    const request = { principal: 'role:reader', action: `${area}:read`, resource: 'docs/1' };
    let stored: { id: string; name: string };
    let simulateOnly: string;
    let mayRead: string;

    beforeAll(async () => {
      stored = await createPolicy(server.client, {
        principals: ['role:reader'],
        actions: [`${area}:read`],
        resources: ['docs/*'],
        conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
      });
      await createPolicy(server.client, {
        principals: ['service:simulate-only', 'service:may-read'],
        actions: ['policies:simulate'],
        resources: ['policies'],
      });
      await createPolicy(server.client, {
        principals: ['service:may-read'],
        actions: ['policies:read'],
        resources: [`policies/${stored.id}`],
      });
      simulateOnly = (await createKey(server.client, 'service:simulate-only')).secret;
      mayRead = (await createKey(server.client, 'service:may-read')).secret;
    });

    const simulate = async (key: string) => {
      const { data } = await server.clientWith(key).POST('/v1/policies/simulate', {
        body: { ...request, context: { ip: '10.1.2.3' }, explain: true },
      });
      if (!data) throw new Error('no data');
      return data.data;
    };

    it('shows a key without policies:read the effect only, as "hidden"', async () => {
      const result = await simulate(simulateOnly);
      expect(result.decision).toBe('allow');
      expect(result.matchedPolicies).toEqual([{ id: 'hidden', name: 'hidden', effect: 'allow' }]);
      expect(result.explanation).toEqual([
        { policyId: 'hidden', policyName: 'hidden', effect: 'allow', matched: true },
      ]);
      expect(JSON.stringify(result)).not.toContain(stored.id);
      expect(JSON.stringify(result)).not.toContain(stored.name);
    });

    it('names the policy to a key that may read it, and to the root key', async () => {
      for (const key of [mayRead, server.rootKey]) {
        const result = await simulate(key);
        expect(result.matchedPolicies).toEqual([
          { id: stored.id, name: stored.name, effect: 'allow' },
        ]);
        expect(result.explanation?.[0]).toMatchObject({
          policyId: stored.id,
          policyName: stored.name,
          conditions: { 'ip.allowlist': true },
        });
      }
    });

    it('always names the caller’s own drafts in a batch, and hides stored policies beside them', async () => {
      const { data } = await batch(
        {
          checks: [{ ...request, context: { ip: '10.1.2.3' } }],
          draftPolicies: [{ ...draft(['docs/*'], [`${area}:read`]), principals: ['role:reader'] }],
          explain: true,
        },
        server.clientWith(simulateOnly),
      );
      const result = data?.data.results[0];
      expect(result?.matchedPolicies).toEqual([
        { id: 'hidden', name: 'hidden', effect: 'allow' },
        { id: 'draft_0', name: 'draft', effect: 'allow' },
      ]);
      expect(result?.explanation?.map((e) => e.policyId)).toEqual(['draft_0', 'hidden']);
    });
  });
});
