import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';
import { traffic } from './traffic.js';

const batch = (n: number) => ({
  entries: Array.from({ length: 1000 }, (_, i) => ({
    event: 'user.login',
    actor: { id: `user_${n}_${i}`, type: 'user' },
    result: 'success',
    metadata: { note: 'x'.repeat(500) },
  })),
});

describe('SIGTERM', { timeout: 120_000 }, () => {
  it('ends the process cleanly under load, not by its forced deadline: ingests in flight, an export running, a client that never finishes its upload', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-shutdown-'));
    const key = generateSecret();
    const server = await spawnServer({ SECADMIN_DATA_DIR: dataDir, SECADMIN_ADMIN_API_KEY: key });
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    let stalled: ReturnType<typeof connect> | undefined;
    let sent = 0;
    const ingests = traffic(() => post('/v1/logs', batch(sent++)).catch(() => Response.error()), {
      workers: 3,
    });
    try {
      await waitFor('some entries', async () => ingests.samples.some((s) => s.status === 201));
      const exported = await post('/v1/logs/export', {
        from: '2020-01-01T00:00:00Z',
        to: '2030-01-01T00:00:00Z',
        format: 'csv',
      });
      expect(exported.status).toBe(201);
      // A slow client: headers and half a body, then nothing (the server would wait 300 s).
      const { port } = new URL(server.url);
      stalled = connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => stalled?.once('connect', resolve));
      stalled.on('error', () => {});
      stalled.write(
        `POST /v1/logs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"entries":[`,
      );

      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));

      // A shutdown that ran into its own deadline says so and exits with an error.
      expect(server.child.exitCode).toBe(0);
      expect(server.output()).not.toContain('shutdown took longer');
    } finally {
      stalled?.destroy();
      await ingests.stop();
      await server.dispose();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
