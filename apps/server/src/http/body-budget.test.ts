import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger } from '../../test/faults/traffic.js';
import { createKey, createPolicy } from '../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../test/helpers/server.js';
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

  constructor(
    server: TestServer,
    key: string | undefined,
    length: number | 'chunked',
    {
      method = 'POST',
      path = '/v1/logs',
      headers = [] as string[],
      localAddress = '127.0.0.1',
    } = {},
  ) {
    const { port } = new URL(server.url);
    this.socket = connect({ port: Number(port), host: '127.0.0.1', localAddress });
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
        `${method} ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        ...(key ? [`Authorization: Bearer ${key}`] : []),
        'Content-Type: application/json',
        length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`,
        ...headers,
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
describe('bodies in flight', () => {
  let server: TestServer;
  let other: string;
  const open: RawRequest[] = [];

  beforeAll(async () => {
    server = await startTestServer({
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

const connectionOf = (head: string) => /\r\nconnection: ([^\r]+)/i.exec(head)?.[1]?.toLowerCase();

/**
 * Issue 41, second round: bodies that are never read (no key, or an operation that takes none)
 * held the process's bound; a principal's keys each had a bound of their own; a declared
 * length past the limit was read before its 413; `Expect: 100-continue` was met before a refusal;
 * a body that does not decompress was a 500; a client that went away was an error in the log.
 */
describe('bodies that are refused or never read', () => {
  let server: TestServer;
  let log: ReturnType<typeof capturingLogger>;
  let first: string;
  let second: string;
  const open: RawRequest[] = [];
  const hold = (key: string, bytes: number) => {
    const request = new RawRequest(server, key, bytes);
    request.send('{"entries":[');
    open.push(request);
    return request;
  };
  const errorLines = () => log.lines().filter((line) => Number(line.level) >= 50);

  beforeAll(async () => {
    log = capturingLogger();
    server = await startTestServer(
      { bodies: { perKeyBytes: 64 * KIB, processBytes: 100 * KIB, idleMs: 600_000 } },
      { logger: log.logger },
    );
    await createPolicy(server.client, {
      principals: ['service:many-keys'],
      actions: ['logs:write'],
      resources: ['logs'],
    });
    first = (await createKey(server.client, 'service:many-keys')).secret;
    second = (await createKey(server.client, 'service:many-keys')).secret;
  });
  afterEach(async () => {
    for (const request of open.splice(0)) request.close();
    await waitFor(
      'room again',
      async () => statusOf(await whole(server, server.rootKey, 60 * KIB)) === 400,
    );
  });
  afterAll(async () => {
    for (const request of open) request.close();
    await server?.stop();
  });

  it('answers a request whose body is not read at once, closes it, and charges it to no bound', async () => {
    // Each from an address of its own, together past the process's bound.
    const trickles = ['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((localAddress) => {
      const request = new RawRequest(server, undefined, 60 * KIB, {
        method: 'GET',
        path: '/healthz',
        localAddress,
      });
      request.send('x');
      open.push(request);
      return request;
    });
    for (const request of trickles) {
      const head = await request.answered;
      expect(statusOf(head)).toBe(200);
      expect(connectionOf(head)).toBe('close');
      await request.closed;
    }
    for (const [path, method, key, status] of [
      ['/no/such/route', 'GET', undefined, 404],
      ['/healthz', 'POST', undefined, 405],
      ['/v1/logs', 'POST', undefined, 401],
      ['/v1/users', 'GET', server.rootKey, 200],
    ] as const) {
      const request = new RawRequest(server, key, 60 * KIB, { method, path });
      open.push(request);
      const head = await request.answered;
      expect(statusOf(head)).toBe(status);
      expect(connectionOf(head)).toBe('close');
      await request.closed;
    }
    // A body that would not decompress is not read either.
    const healthz = await raw(server, '/healthz', {
      method: 'GET',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(healthz.status).toBe(200);
    // Nothing of them was counted: a write still has the process's whole bound.
    expect(statusOf(await whole(server, server.rootKey, 60 * KIB))).toBe(400);
  });

  it('bounds the bodies of all keys of one principal together', async () => {
    hold(first, 40 * KIB);
    await waitFor(
      'the first key counted',
      async () => statusOf(await whole(server, first, 30 * KIB)) === 429,
    );
    const head = await whole(server, second, 30 * KIB);
    expect(statusOf(head)).toBe(429);
    expect(retryAfterOf(head)).toBe('1');
    // Another principal is not held back by it.
    expect(statusOf(await whole(server, server.rootKey, 30 * KIB))).toBe(400);
  });

  it('refuses a declared length past the limit or past what the principal has left, unread', async () => {
    const tooLarge = new RawRequest(server, server.rootKey, 209_715_200);
    open.push(tooLarge);
    const head = await tooLarge.answered;
    expect(statusOf(head)).toBe(413);
    expect(connectionOf(head)).toBe('close');
    await tooLarge.closed;

    hold(first, 40 * KIB);
    await waitFor(
      'the first key counted',
      async () => statusOf(await whole(server, first, 30 * KIB)) === 429,
    );
    const left = new RawRequest(server, second, 30 * KIB);
    open.push(left);
    expect(statusOf(await left.answered)).toBe(429);
    await left.closed;
  });

  it('sends the final status instead of 100 Continue to a request it refuses', async () => {
    const expect100 = { headers: ['Expect: 100-continue'] };
    const unauthenticated = new RawRequest(server, undefined, 30 * KIB, expect100);
    const tooLarge = new RawRequest(server, server.rootKey, 209_715_200, expect100);
    open.push(unauthenticated, tooLarge);
    expect(statusOf(await unauthenticated.answered)).toBe(401);
    expect(statusOf(await tooLarge.answered)).toBe(413);

    hold(first, 40 * KIB);
    await waitFor(
      'the first key counted',
      async () => statusOf(await whole(server, first, 30 * KIB)) === 429,
    );
    const throttled = new RawRequest(server, second, 30 * KIB, expect100);
    open.push(throttled);
    expect(statusOf(await throttled.answered)).toBe(429);

    // One that will be read is told to go on.
    const admitted = new RawRequest(server, server.rootKey, 2, expect100);
    open.push(admitted);
    expect(statusOf(await admitted.answered)).toBe(100);
  });

  it('answers a body that does not decompress with 400, and logs no error', async () => {
    const gzipped = gzipSync('{}');
    for (const [encoding, body] of [
      ['br', 'xx'],
      ['BR', 'xx'],
      ['gzip', 'not gzip'],
      ['gzip', ''],
      ['gzip', gzipped.subarray(0, gzipped.length - 4)],
      ['deflate', 'not deflate'],
    ] as const) {
      const res = await raw(server, '/v1/logs/verify', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.rootKey}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
        },
        body,
      });
      expect(res.status, `${encoding} ${JSON.stringify(String(body))}`).toBe(400);
      expect((await json(res)).error).toMatchObject({
        code: 'invalid_request',
        message: `The request body could not be decompressed as its Content-Encoding (${encoding.toLowerCase()}) says.`,
      });
    }
    expect(errorLines()).toEqual([]);
  });

  it('logs a client that goes away in the middle of a body below error level, without a stack', async () => {
    const aborted = hold(first, 40 * KIB);
    await waitFor(
      'the body being read',
      async () => statusOf(await whole(server, second, 30 * KIB)) === 429,
    );
    aborted.close();
    await waitFor('the abort logged', async () =>
      log.lines().some((line) => line.msg === 'client aborted the request body'),
    );
    const line = log.lines().find((l) => l.msg === 'client aborted the request body');
    expect(line).toMatchObject({ level: 30 });
    expect(line).not.toHaveProperty('err');
    expect(errorLines()).toEqual([]);
  });
});
