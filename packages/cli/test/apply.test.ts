import { createSecadminClient, type Policy } from '@secadmin/api-client';
import { describe, expect, it } from 'vitest';
import { CliError } from '../src/errors.js';
import { createOutput } from '../src/output.js';
import { applyPlan, readStoredPolicies } from '../src/policies/apply.js';
import { planChanges } from '../src/policies/plan.js';

// The server is gaining ETag / If-Match on policies; until then these answers stand in for it.
const stored: Policy = {
  id: 'pol_1',
  name: 'readers',
  effect: 'allow',
  principals: ['role:reader'],
  actions: ['users:read'],
  resources: ['users/*'],
  createdAt: '2026-11-25T21:00:00.000Z',
  updatedAt: '2026-11-25T21:00:00.000Z',
};

function fakeServer(options: { etag?: string; patchStatus?: number }) {
  const patches: Request[] = [];
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const client = createSecadminClient({
    baseUrl: 'http://secadmin.test',
    apiKey: 'sk_test',
    retry: { maxRetries: 0 },
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      const meta = { requestId: 'req_1' };
      if (request.method === 'GET' && path === '/v1/policies')
        return json(200, { data: [stored], pagination: { hasMore: false }, meta });
      if (request.method === 'GET' && path === '/v1/policies/pol_1')
        return json(200, { data: stored, meta }, options.etag ? { ETag: options.etag } : {});
      if (request.method === 'PATCH') {
        patches.push(request);
        const status = options.patchStatus ?? 200;
        return status === 200
          ? json(200, { data: stored, meta })
          : json(status, { error: { code: 'precondition_failed', message: 'changed' }, meta });
      }
      return json(404, { error: { code: 'not_found', message: path }, meta });
    },
  });
  return { client, patches };
}

const wanted = [
  { file: 'readers.yaml', policy: { ...stored, actions: ['users:read', 'users:list'] } },
];
const names = new Set(['readers']);
const quiet = { ...createOutput(false), note: () => {} };

describe('applying an update', () => {
  it('sends the ETag read for the plan as If-Match', async () => {
    const { client, patches } = fakeServer({ etag: '"v7"' });
    const steps = planChanges(wanted, await readStoredPolicies(client, names), false);
    await applyPlan(client, steps, quiet);
    expect(patches).toHaveLength(1);
    expect(patches[0]?.headers.get('if-match')).toBe('"v7"');
    expect(await patches[0]?.json()).toEqual({ actions: ['users:read', 'users:list'] });
  });

  it('sends no If-Match when the server sent no ETag', async () => {
    const { client, patches } = fakeServer({});
    await applyPlan(
      client,
      planChanges(wanted, await readStoredPolicies(client, names), false),
      quiet,
    );
    expect(patches[0]?.headers.has('if-match')).toBe(false);
  });

  it('stops with a clear message on 412 (changed since the plan) instead of overwriting', async () => {
    const { client } = fakeServer({ etag: '"v7"', patchStatus: 412 });
    const steps = planChanges(wanted, await readStoredPolicies(client, names), false);
    const failure = applyPlan(client, steps, quiet);
    await expect(failure).rejects.toBeInstanceOf(CliError);
    await expect(failure).rejects.toThrow(/"readers" was changed on the server after the plan/);
  });
});
