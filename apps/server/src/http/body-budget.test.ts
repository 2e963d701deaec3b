import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy } from '../../test/helpers/fixtures.js';
import { DATABASES, startTestServer, type TestServer } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait.js';

const KIB = 1024;
const BODY = 30 * KIB;

/** A raw HTTP/1.1 request, so that a body can be sent in part, or not at all. */
class RawRequest {
  readonly socket: Socket;
  private received = '';
  /** Resolves with what the server sent once it closed the connection (or once it answered). */
  readonly answered: Promise<string>;
  readonly closed: Promise<void>;

  constructor(server: TestServer, key: string, length: number | 'chunked') {
    const { port } = new URL(server.url);
    this.socket = connect(Number(port), '127.0.0.1');
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.answered = new Promise((resolve) => {
      this.socket.on('data', (chunk: Buffer) => {
        this.received += chunk.toString('latin1');
        if (/\r\n\r\n/.test(this.received)) resolve(this.received);
      });
      this.socket.once('close', () => resolve(this.received));
    });
    this.socket.write(
      [
        'POST /v1/logs HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        `Authorization: Bearer ${key}`,
        'Content-Type: application/json',
        length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
        '',
        '',
      ].join('\r\n'),
    );
  }

  send(text: string): void {
    this.socket.write(text);
  }

  chunk(bytes: number): void {
    this.socket.write(`${bytes.toString(16)}\r\n${'x'.repeat(bytes)}\r\n`);
  }

  close(): void {
    this.socket.destroy();
  }
}

const statusOf = (head: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
const retryAfterOf = (head: string) => /\r\nretry-after: (\d+)/i.exec(head)?.[1];

/** A whole body of `bytes` (not a valid ingest: a 400 once it is read). */
async function whole(server: TestServer, key: string, bytes: number): Promise<string> {
  const body = `{"pad":"${'x'.repeat(bytes - 10)}"}`;
  const request = new RawRequest(server, key, body.length);
  request.send(body);
  const head = await request.answered;
  request.close();
  return head;
}

/**
 * Issue 41: one key held 300 half-sent 10 MB ingest bodies and the process's memory doubled.
 * Bodies in flight are now bounded per key and for the process, before they are read.
 */
describe.each(DATABASES)('bodies in flight on %s', (database) => {
  let server: TestServer;
  let other: string;
  const open: RawRequest[] = [];

  beforeAll(async () => {
    server = await startTestServer(database, {
      bodies: { perKeyBytes: 64 * KIB, processBytes: 100 * KIB, idleMs: 600_000 },
    });
    await createPolicy(server.client, {
      principals: ['service:other'],
      actions: ['logs:write'],
      resources: ['logs'],
    });
    other = (await createKey(server.client, 'service:other')).secret;
  });
  afterAll(async () => {
    for (const request of open) request.close();
    await server?.stop();
  });

  it('refuses a key past its bound with 429 before its body is read, others go on, the process bound is a 503', async () => {
    for (let i = 0; i < 2; i++) {
      const request = new RawRequest(server, server.rootKey, BODY);
      request.send('{"entries":[');
      open.push(request);
    }
    // Once both half-sent bodies are counted, a third from the same key is refused...
    await waitFor('the key at its bound', async () => {
      const head = await whole(server, server.rootKey, BODY);
      return statusOf(head) === 429;
    });
    // ...before any of its body is sent.
    const refused = new RawRequest(server, server.rootKey, BODY);
    const head = await refused.answered;
    refused.close();
    expect(statusOf(head)).toBe(429);
    expect(retryAfterOf(head)).toBe('1');

    // Another key is not held back by it.
    expect(statusOf(await whole(server, other, BODY))).toBe(400);

    // The process's bound: 60 KiB of the first key, 30 of the other's half-sent body.
    const half = new RawRequest(server, other, BODY);
    half.send('{"entries":[');
    open.push(half);
    let unavailable = '';
    await waitFor('the process at its bound', async () => {
      unavailable = await whole(server, other, BODY);
      return statusOf(unavailable) === 503;
    });
    expect(retryAfterOf(unavailable)).toBe('1');

    // Bodies that end leave room behind.
    for (const request of open.splice(0)) request.close();
    await waitFor(
      'room again',
      async () => statusOf(await whole(server, server.rootKey, BODY)) === 400,
    );
  });

  it('counts a chunked body as it arrives', async () => {
    const chunked = new RawRequest(server, server.rootKey, 'chunked');
    open.push(chunked);
    chunked.chunk(50 * KIB);
    await waitFor(
      'the chunks counted',
      async () => statusOf(await whole(server, server.rootKey, BODY)) === 429,
    );
    // Past the bound on its own while it arrives: cut off.
    chunked.chunk(20 * KIB);
    await chunked.closed;
    await waitFor(
      'room again',
      async () => statusOf(await whole(server, server.rootKey, BODY)) === 400,
    );
  });

  it('closes a body that makes no progress', async () => {
    server = await server.restart({
      bodies: { perKeyBytes: 64 * KIB, processBytes: 100 * KIB, idleMs: 200 },
    });
    const stalled = new RawRequest(server, server.rootKey, BODY);
    open.push(stalled);
    stalled.send('{"entries":[');
    await stalled.closed;
    expect(statusOf(await stalled.answered)).toBeNaN();
    expect(statusOf(await whole(server, server.rootKey, BODY))).toBe(400);
  });
});
