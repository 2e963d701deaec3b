import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../test/helpers/server.js';

describe('listening', () => {
  const taken = createServer();
  let port: number;
  beforeAll(async () => {
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it('refuses to start on a port another process holds, saying so', async () => {
    await expect(startTestServer({ port, host: '127.0.0.1' })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});
