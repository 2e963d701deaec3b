import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, createPolicy } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

it("reads the state versions once per request: its key, its right and each check's decision share them", async () => {
  await createPolicy(server.client, {
    principals: ['service:pep'],
    actions: ['policies:simulate', 'policies:read'],
    resources: ['policies', 'policies/*'],
  });
  const key = await createKey(server.client, 'service:pep');
  const checks = Array.from({ length: 5 }, (_, i) => ({
    principal: 'service:pep',
    action: 'policies:read',
    resource: `policies/${i}`,
  }));
  const simulate = () =>
    server
      .clientWith(key.secret)
      .POST('/v1/policies/simulate/batch', { body: { checks, explain: true } });
  // Loads the policies and the key into their caches (a load reads the versions of its own).
  expect((await simulate()).response.status).toBe(200);
  const versions = server.services.versions;
  const current = versions.current;
  let reads = 0;
  versions.current = () => {
    reads++;
    return current.call(versions);
  };
  try {
    expect((await simulate()).response.status).toBe(200);
    expect(reads).toBe(1);
  } finally {
    versions.current = current;
  }
});
