import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

/**
 * Issue 20, L-b: a simulation with `explain` and no IP named `ip` in `missingContextKeys`
 * because of a policy the caller may not read: its IP condition leaked through the list.
 */
describe('missing context keys of hidden policies', () => {
  let server: TestServer;
  let simulateOnly: string;
  const request = { principal: 'role:auditor', action: 'ledger:read', resource: 'ledger/1' };

  beforeAll(async () => {
    server = await startTestServer();
    await createPolicy(server.client, {
      principals: ['role:auditor'],
      actions: ['ledger:read'],
      resources: ['ledger/*'],
      conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
    });
    await createPolicy(server.client, {
      principals: ['service:simulate-only'],
      actions: ['policies:simulate'],
      resources: ['policies'],
    });
    simulateOnly = (await createKey(server.client, 'service:simulate-only')).secret;
  });
  afterAll(() => server?.stop());

  const simulate = async (key: string) => {
    const { data } = await server.clientWith(key).POST('/v1/policies/simulate', {
      body: { ...request, explain: true },
    });
    if (!data) throw new Error('no data');
    return data.data;
  };

  it('names no key that only a hidden policy asks for', async () => {
    const result = await simulate(simulateOnly);
    expect(result.explanation).toEqual([
      { policyId: 'hidden', policyName: 'hidden', effect: 'allow', matched: false },
    ]);
    expect(result.missingContextKeys).toEqual([]);
  });

  it('names it to a caller that may read the policy', async () => {
    expect((await simulate(server.rootKey)).missingContextKeys).toEqual(['ip']);
  });
});
