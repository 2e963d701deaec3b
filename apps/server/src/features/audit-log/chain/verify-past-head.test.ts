import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';

/** Issue 20, L-a: a range past the head answered `valid: true` with nothing checked. */
describe('verify of a range past the head', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.client.POST('/v1/logs', {
      body: { entries: [{ event: 'chain.one', actor: { type: 'user' }, result: 'success' }] },
    });
    await waitFor('a covered chain', async () => {
      const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
      return data?.data.valid === true && data.data.checkedEntries === 1;
    });
  });
  afterAll(() => server?.stop());

  it('says that nothing past the head was verified, and is not valid', async () => {
    const { data, response } = await server.client.POST('/v1/logs/verify', {
      body: { fromSeq: 999_999_999 },
    });
    expect(response.status).toBe(200);
    expect(data?.data).toEqual({
      valid: false,
      checkedEntries: 0,
      lastCheckpointSeq: null,
      reason: 'seq 999999999 is past the head of the chain (seq 1): nothing was verified',
    });
  });

  it('still verifies a range that ends past the head, up to the head', async () => {
    const { data } = await server.client.POST('/v1/logs/verify', {
      body: { fromSeq: 1, toSeq: 999_999_999 },
    });
    expect(data?.data).toMatchObject({ valid: true, checkedEntries: 1 });
  });
});
