import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../test/helpers/server.js';
import { waitFor } from '../test/helpers/wait.js';
import { traceIdOfHeader } from './tracing.js';

// biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON and API answers are inspected as JSON
type Json = any;

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe('traceparent', () => {
  it('takes the trace id of a valid header and nothing of an invalid one', () => {
    expect(traceIdOfHeader(TRACEPARENT)).toBe(TRACE_ID);
    expect(traceIdOfHeader(`01-${TRACE_ID}-${PARENT_ID}-01-future`)).toBe(TRACE_ID);
    for (const bad of [
      undefined,
      '',
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
      `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
      `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`,
      'not a traceparent',
    ])
      expect(traceIdOfHeader(bad), String(bad)).toBeUndefined();
  });
});

/** A server's requests: create a user (one audit entry), optionally with headers. */
async function createUser(server: TestServer, email: string, headers: Record<string, string> = {}) {
  const res = await raw(server, '/v1/users', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${server.rootKey}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ email, name: 'Traced', password: 'correct-horse-battery-staple-9' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).data as { id: string };
}

/** A GET with the root key, as JSON. */
async function readJson(server: TestServer, path: string): Promise<Json> {
  const res = await raw(server, path, { headers: { authorization: `Bearer ${server.rootKey}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** The `user.created` entry of a user, as `GET /v1/logs/{id}` shows it. */
async function createdEntry(server: TestServer, userId: string): Promise<Json> {
  await server.sealer.flush();
  const list = await readJson(server, '/v1/logs?events=user.created&limit=100');
  const entry = list.data.find((e: Json) => e.target?.id === userId);
  expect(entry, 'the user.created entry').toBeDefined();
  return (await readJson(server, `/v1/logs/${entry.id}`)).data;
}

describe('trace context without an exporter', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it("gives the request's audit entries the trace id of its traceparent, and none without one", async () => {
    const traced = await createUser(server, 'traced@example.com', { traceparent: TRACEPARENT });
    expect((await createdEntry(server, traced.id)).traceId).toBe(TRACE_ID);

    const plain = await createUser(server, 'plain@example.com');
    expect((await createdEntry(server, plain.id)).traceId).toBeUndefined();

    const forged = await createUser(server, 'forged@example.com', {
      traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
    });
    expect((await createdEntry(server, forged.id)).traceId).toBeUndefined();
  });

  it('records the trace id on a rejected key too', async () => {
    const res = await raw(server, '/v1/users', {
      headers: { authorization: 'Bearer sk_wrong_key_for_tracing', traceparent: TRACEPARENT },
    });
    expect(res.status).toBe(401);
    await server.sealer.flush();
    const list = await readJson(server, '/v1/logs?events=auth.failed&limit=100');
    const detail = await readJson(server, `/v1/logs/${list.data[0].id}`);
    expect(detail.data.traceId).toBe(TRACE_ID);
  });
});

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  let collector: Server;
  const exported: { path: string; contentType: string | undefined; body: string }[] = [];
  let server: TestServer;

  beforeAll(async () => {
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        exported.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    server = await startTestServer({ otlpEndpoint: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => collector?.close(resolve));
  });

  /** Every span exported so far, flattened. */
  const spans = (): Json[] =>
    exported.flatMap(({ body }) =>
      (JSON.parse(body).resourceSpans as Json[]).flatMap((r) =>
        (r.scopeSpans as Json[]).flatMap((s) => s.spans as Json[]),
      ),
    );
  const attribute = (span: Json, key: string) =>
    span.attributes.find((a: Json) => a.key === key)?.value;

  it('exports a server span per request named by its route, a child of the incoming traceparent, with database spans under it', async () => {
    const user = await createUser(server, 'otel@example.com', { traceparent: TRACEPARENT });
    const get = await raw(server, `/v1/users/${user.id}`, {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(get.status).toBe(200);
    const entry = await createdEntry(server, user.id);
    expect(entry.traceId).toBe(TRACE_ID);

    // The batch processor sends within seconds; a restart would flush it at once, but the
    // test waits for the exporter as an operator's collector would.
    await waitFor(
      'the spans exported',
      () => spans().some((s) => s.name === 'GET /v1/users/{id}'),
      30_000,
    );
    expect(exported[0]?.path).toBe('/v1/traces');
    expect(exported[0]?.contentType).toMatch(/^application\/json/);

    const all = spans();
    const created = all.find((s) => s.name === 'POST /v1/users');
    expect(created).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, kind: 2 });
    expect(attribute(created, 'http.route')).toEqual({ stringValue: '/v1/users' });
    expect(attribute(created, 'http.request.method')).toEqual({ stringValue: 'POST' });
    expect(attribute(created, 'http.response.status_code')).toEqual({ intValue: 201 });
    const children = all.filter((s) => s.parentSpanId === created.spanId);
    expect(children.length).toBeGreaterThan(0);
    expect(children.every((s) => s.traceId === TRACE_ID)).toBe(true);
    expect(children.some((s) => attribute(s, 'db.system.name')?.stringValue === 'postgresql')).toBe(
      true,
    );

    // Without a traceparent, the request starts a trace of its own, and its entries carry it.
    const fresh = all.find((s) => s.name === 'GET /v1/users/{id}');
    expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.traceId).not.toBe(TRACE_ID);

    const text = exported.map((e) => e.body).join('\n');
    expect(text).not.toContain(server.rootKey);
    expect(text).not.toContain('correct-horse-battery-staple-9');
  });

  it('exports the requests of a caller whose traceparent asks not to sample them', async () => {
    const hiddenTrace = 'ab'.repeat(16);
    const res = await raw(server, '/v1/users', {
      headers: {
        authorization: 'Bearer sk_wrong_key_hiding_from_traces',
        traceparent: `00-${hiddenTrace}-${PARENT_ID}-00`,
      },
    });
    expect(res.status).toBe(401);
    await waitFor(
      'its span exported',
      () => spans().some((s) => s.traceId === hiddenTrace),
      30_000,
    );
  });

  it('gives the entries of a request without traceparent the trace id of its own span', async () => {
    const user = await createUser(server, 'untraced@example.com');
    const entry = await createdEntry(server, user.id);
    expect(entry.traceId).toMatch(/^[0-9a-f]{32}$/);
    await waitFor(
      'its span exported',
      () => spans().some((s) => s.name === 'POST /v1/users' && s.traceId === entry.traceId),
      30_000,
    );
  });
});
