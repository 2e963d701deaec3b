import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy } from '../../../test/helpers/fixtures.js';
import { pacedAt, pacedWork } from '../../../test/helpers/paced-work.js';
import { postText, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const SIMULATION = 'features/policies/simulation.ts';

/**
 * Issue 20, H2: one key with `policies:simulate` sends batches whose draft resources are
 * patterns like `*aaa…ab*` against long resources. A batch past the bound on matching work is
 * refused before any matching; one within it is matched a check and a draft at a time, letting
 * the event loop turn between them. How fast both go, and what `/healthz` meanwhile answers in,
 * is the bench's (batch simulation, and `/healthz` during hostile requests).
 */
describe('batch simulation with pathological draft globs', () => {
  let server: TestServer;
  let simulatorKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    await createPolicy(server.client, {
      principals: ['service:simulator'],
      actions: ['policies:simulate'],
      resources: ['policies'],
    });
    simulatorKey = (await createKey(server.client, 'service:simulator')).secret;
  });
  afterAll(() => server?.stop());

  /** `drafts` drafts of `patterns` resource patterns `*a…a<x>*`, and 100 checks on 512-character resources. */
  function attack(drafts: number, patterns: number, explain = false) {
    const draft = (i: number) => ({
      name: `d${i}`,
      effect: 'allow',
      principals: ['service:victim'],
      actions: ['*'],
      resources: Array.from(
        { length: patterns },
        (_, j) => `*${'a'.repeat(150)}${String.fromCharCode(98 + ((i + j) % 20))}*`,
      ),
    });
    return {
      checks: Array.from({ length: 100 }, (_, i) => ({
        principal: 'service:victim',
        action: 'docs:read',
        resource: `${'a'.repeat(508)}${String(i).padStart(4, '0')}`,
      })),
      draftPolicies: Array.from({ length: drafts }, (_, i) => draft(i)),
      useStored: false,
      explain,
    };
  }

  interface Answer {
    status: number;
    body: { data?: { results: unknown[] }; error?: { details: { field: string }[] } };
  }

  async function simulate(body: unknown) {
    let answer: Answer | undefined;
    const paced = await pacedWork(async () => {
      const res = await postText(server, '/v1/policies/simulate/batch', JSON.stringify(body), {
        authorization: `Bearer ${simulatorKey}`,
      });
      answer = { status: res.status, body: (await res.json()) as Answer['body'] };
    });
    return { answer, simulation: pacedAt(paced, SIMULATION), paced };
  }

  it('refuses the attack batch before matching anything (its matching work is past the bound)', async () => {
    const { answer, simulation } = await simulate(attack(100, 60));
    expect(answer?.status).toBe(400);
    expect(answer?.body.error?.details.map((d) => d.field)).toEqual(['body.draftPolicies']);
    expect(simulation).toEqual([]);
  });

  it('answers the heaviest batch within the bound a check and a draft at a time, the loop turning between each', async () => {
    // 5 drafts × 60 patterns × 100 checks × (152 + 512) = 19,920,000 units of work.
    const { answer, simulation, paced } = await simulate(attack(5, 60, true));
    expect(answer?.status).toBe(200);
    expect(answer?.body.data?.results).toHaveLength(100);
    // A pace before each check, and before its matching against the drafts.
    expect(simulation).toHaveLength(1);
    expect(simulation[0]?.paces).toBeGreaterThanOrEqual(2 * 100);
    for (const computation of paced)
      expect(computation.turns, computation.site).toBe(computation.paces - 1);
  });
});
