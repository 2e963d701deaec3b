import { connect, createServer, type Server, type Socket } from 'node:net';
import { createSecadminClient } from '@secadmin/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, uniqueEmail } from '../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';

let counter = 0;
const uniqueKey = () => `idem-${Date.now()}-${counter++}`;
const uniqueEvent = () => `idem.test_${Date.now()}_${counter++}`;

describe('idempotency keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const post = (path: string, body: unknown, key: string | undefined, apiKey = server.rootKey) =>
    raw(server, path, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
  const count = async (sql: string, params: unknown[]) =>
    (await server.db.query<{ n: number }>(sql, params))[0]?.n;
  const usersWithEmail = (email: string) =>
    count('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
  const entriesOf = (event: string) =>
    count('SELECT count(*)::int AS n FROM log_entries WHERE event = $1', [event]);
  const auditEntriesAbout = (id: string) =>
    count('SELECT count(*)::int AS n FROM log_entries WHERE target_id = $1', [id]);
  const ingestBody = (event: string) => ({
    entries: [
      { event, actor: { type: 'system' }, result: 'success' as const },
      { event, actor: { type: 'system' }, result: 'failure' as const },
    ],
  });

  it('replays the same status and data, with the header and a new requestId, doing nothing twice', async () => {
    const key = uniqueKey();
    const email = uniqueEmail('idem');
    const first = await post('/v1/users', { email, name: 'Once' }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await json(first);

    // Key order and whitespace do not make a different request.
    const again = await raw(server, '/v1/users', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.rootKey}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: `{ "name": "Once", "email": ${JSON.stringify(email)} }`,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    const againBody = await json(again);
    expect(againBody.data).toEqual(firstBody.data);
    expect(againBody.meta.requestId).toBe(again.headers.get('x-request-id'));
    expect(againBody.meta.requestId).not.toBe(firstBody.meta.requestId);

    expect(await usersWithEmail(email)).toBe(1);
    expect(await auditEntriesAbout(firstBody.data.id)).toBe(1);
  });

  it('stores one batch of log entries for a replayed ingest', async () => {
    const key = uniqueKey();
    const event = uniqueEvent();
    const first = await post('/v1/logs', ingestBody(event), key);
    const second = await post('/v1/logs', ingestBody(event), key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(second)).data).toEqual((await json(first)).data);
    expect(await entriesOf(event)).toBe(2);
  });

  it('replays a kept 4xx too', async () => {
    const key = uniqueKey();
    const email = uniqueEmail('taken');
    await post('/v1/users', { email }, undefined);
    const first = await post('/v1/users', { email }, key);
    expect(first.status).toBe(409);
    const second = await post('/v1/users', { email }, key);
    expect(second.status).toBe(409);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(second)).error).toEqual((await json(first)).error);
  });

  it('refuses the same key with a different body or path: 422, nothing done', async () => {
    const key = uniqueKey();
    const event = uniqueEvent();
    expect((await post('/v1/logs', ingestBody(event), key)).status).toBe(201);
    const other = uniqueEvent();
    const reused = await post('/v1/logs', ingestBody(other), key);
    expect(reused.status).toBe(422);
    expect((await json(reused)).error.code).toBe('idempotency_key_reused');
    const elsewhere = await post('/v1/users', { email: uniqueEmail() }, key);
    expect(elsewhere.status).toBe(422);
    expect(await entriesOf(other)).toBe(0);
  });

  it('processes exactly one of concurrent identical requests; the others get 409 or a replay', async () => {
    const key = uniqueKey();
    const event = uniqueEvent();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => post('/v1/logs', ingestBody(event), key)),
    );
    const outcomes = await Promise.all(
      responses.map(async (res) => ({
        status: res.status,
        replayed: res.headers.get('idempotent-replayed') === 'true',
        code: (await json(res)).error?.code,
      })),
    );
    const processed = outcomes.filter((o) => o.status === 201 && !o.replayed);
    expect(processed).toHaveLength(1);
    for (const o of outcomes)
      expect(o.status === 201 || (o.status === 409 && o.code === 'conflict')).toBe(true);
    expect(await entriesOf(event)).toBe(2);
  });

  it('scopes a key to the API key that sent it', async () => {
    const principal = `service:idem-${counter++}`;
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['logs:write'],
      resources: ['logs'],
    });
    const other = await createKey(server.client, principal);
    const key = uniqueKey();
    const event = uniqueEvent();
    const mine = await post('/v1/logs', ingestBody(event), key);
    const theirs = await post('/v1/logs', ingestBody(event), key, other.secret);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await entriesOf(event)).toBe(4);
  });

  it('refuses an invalid Idempotency-Key with 400 before anything is done', async () => {
    const email = uniqueEmail('badkey');
    for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await post('/v1/users', { email }, key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect((await json(res)).error.details).toEqual([
        { field: 'header.Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
      ]);
    }
    expect((await post('/v1/users', { email }, 'x'.repeat(255))).status).toBe(201);
    expect(await usersWithEmail(email)).toBe(1);
  });

  it('keeps no 5xx: a retry runs again', async () => {
    const key = uniqueKey();
    const event = uniqueEvent();
    const logs = server.services.logs;
    const ingest = logs.ingest;
    logs.ingest = async () => {
      throw new Error('simulated failure');
    };
    try {
      expect((await post('/v1/logs', ingestBody(event), key)).status).toBe(500);
    } finally {
      logs.ingest = ingest;
    }
    const retry = await post('/v1/logs', ingestBody(event), key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await entriesOf(event)).toBe(2);
  });

  it('stores a POST /v1/logs batch once when the connection drops before the response and the client retries', async () => {
    const upstream = new URL(server.url);
    let dropped = 0;
    // Forwards each connection; on the first one, the server's answer never reaches the client.
    const proxy: Server = createServer((client: Socket) => {
      const drop = dropped === 0;
      const target = connect(Number(upstream.port), upstream.hostname);
      client.on('error', () => {});
      target.on('error', () => client.destroy());
      client.pipe(target);
      if (drop) {
        target.once('data', () => {
          dropped++;
          client.destroy();
          target.destroy();
        });
      } else target.pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const address = proxy.address() as { port: number };
      const retries: unknown[] = [];
      const client = createSecadminClient({
        baseUrl: `http://127.0.0.1:${address.port}`,
        apiKey: server.rootKey,
        retry: { maxRetries: 3, onRetry: (info) => retries.push(info) },
      });
      const event = uniqueEvent();
      const acks = await client.logs.ingest(ingestBody(event));
      expect(dropped).toBe(1);
      expect(retries).toHaveLength(1);
      expect(acks).toHaveLength(2);
      expect(await entriesOf(event)).toBe(2);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
