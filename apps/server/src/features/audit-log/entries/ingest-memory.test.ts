import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const liveHeapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

describe('ingest memory', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  // Prisma's debug module keeps the arguments of the last 100 driver calls, debugging on or
  // not: batches written through Prisma's raw queries stayed alive long after their request.
  it('keeps nothing of a batch once it is acknowledged', async () => {
    const batches = 8;
    const entriesPerBatch = 500;
    const send = async (batch: number) => {
      const entries = Array.from({ length: entriesPerBatch }, (_, i) => ({
        event: 'memory.check',
        actor: { type: 'service', id: 'svc_memory' },
        result: 'success',
        metadata: { batch, i, blob: `${'x'.repeat(8000)}${batch}-${i}` },
      }));
      const { response } = await server.client.POST('/v1/logs', { body: { entries } as never });
      expect(response.status).toBe(201);
    };
    await send(-1);
    const before = liveHeapMb();
    for (let batch = 0; batch < batches; batch++) await send(batch);
    // 8 batches of 4 MB: all of them stayed reachable before.
    expect(liveHeapMb() - before).toBeLessThan(12);
  });
});
