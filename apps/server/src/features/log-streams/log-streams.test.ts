import { StreamVerifier, verifyWebhookSignature } from '@secadmin/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, uniqueEmail } from '../../../test/helpers/fixtures.js';
import {
  type Received,
  type Receiver,
  signedWith,
  startReceiver,
} from '../../../test/helpers/receiver.js';
import { raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { waitFor } from '../../../test/helpers/wait.js';

/** Fast retries, a short timeout and poll, so failures and recoveries take milliseconds. */
const STREAMS = {
  allowPrivateNetworks: true,
  retryBaseMs: 20,
  retryMaxMs: 100,
  timeoutMs: 1_000,
  leaseMs: 5_000,
  pollMs: 25,
};

// biome-ignore lint/suspicious/noExplicitAny: responses are inspected as JSON
type Json = any;

describe('log streams', () => {
  let server: TestServer;
  const receivers: Receiver[] = [];
  /** The text of every response the API gave: no secret or token may appear after creation. */
  const responses: string[] = [];
  let run = 0;

  async function api(method: string, path: string, body?: unknown, key?: string) {
    const res = await raw(server, path, {
      method,
      headers: {
        authorization: `Bearer ${key ?? server.rootKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined
        ? { body: typeof body === 'string' ? body : JSON.stringify(body) }
        : {}),
    });
    const text = await res.text();
    responses.push(text);
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }

  async function receiver(reply?: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(reply);
    receivers.push(r);
    return r;
  }

  /** A prefix of its own per test: a stream filtering on it sees only that test's entries. */
  const prefix = () => `st${++run}`;

  /** Ingests entries (an event name: a service's entry of that event) and seals them. */
  async function ingest(events: (string | Json)[], result: 'success' | 'failure' = 'success') {
    const { status } = await api('POST', '/v1/logs', {
      entries: events.map((event) =>
        typeof event === 'string'
          ? { event, actor: { id: 'svc', type: 'service' }, result }
          : event,
      ),
    });
    expect(status).toBe(201);
    await server.sealer.flush();
  }

  async function create(body: Record<string, unknown>) {
    const res = await api('POST', '/v1/log-streams', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }

  const get = async (id: string) => (await api('GET', `/v1/log-streams/${id}`)).body.data;

  beforeAll(async () => {
    server = await startTestServer({ streams: STREAMS });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await server?.stop();
  });

  // First: no other stream holds anything back yet.
  it('keeps through retention the entries an active stream has not delivered', async () => {
    const p = prefix();
    const old = new Date(Date.now() - 45 * 24 * 60 * 60 * 1000).toISOString();
    const ingestOld = async (event: string) => {
      const res = await api('POST', '/v1/logs', {
        entries: [{ event, actor: { type: 'system' }, result: 'success', timestamp: old }],
      });
      expect(res.status).toBe(201);
      await server.sealer.flush();
    };
    await ingestOld(`${p}.before`);
    const r = await receiver(() => ({ status: 503 }));
    const stream = await create({
      name: `${p} holding`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingestOld(`${p}.held`);
    await waitFor('an attempt', () => r.received.length >= 1);
    server = await server.restart({ streams: STREAMS, logRetentionDays: 30 });
    const events = async (event: string) =>
      (await api('GET', `/v1/logs?events=${event}&limit=10`)).body.data as Json[];
    await waitFor('retention ran', async () => (await events('logs.retention.applied')).length > 0);
    expect(await events(`${p}.before`)).toEqual([]);
    expect(await events(`${p}.held`)).toHaveLength(1);
    expect((await api('DELETE', `/v1/log-streams/${stream.id}`)).status).toBe(204);
  });

  it('sends matching sealed entries in seq order, in contiguous ranges of at most batchSize, signed', async () => {
    const p = prefix();
    const r = await receiver();
    const stream = await create({
      name: `${p} ordered`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.a.*`], result: 'success' },
      batchSize: 2,
    });
    expect(stream.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const startHead = stream.deliveredThroughSeq;
    // A stretch with no match, passed over before anything matches: the first message's range covers it.
    await ingest([`${p}.b.before`]);
    await waitFor('the stretch passed over', async () => (await get(stream.id)).lagEntries === 0);
    expect(r.received).toHaveLength(0);
    await ingest([
      `${p}.a.one`,
      `${p}.b.skip`,
      `${p}.a.two`,
      `${p}.a.three`,
      `${p}.b.skip`,
      `${p}.a.four`,
    ]);
    await ingest([`${p}.a.five`], 'failure');
    await waitFor('four entries', () => r.messages().flatMap((m) => m.entries).length >= 4);
    const messages = r.messages();
    expect(messages[0].range.fromSeq).toBe(startHead + 1);
    for (let i = 1; i < messages.length; i++)
      expect(messages[i].range.fromSeq).toBe(messages[i - 1].range.toSeq + 1);
    const entries = messages.flatMap((m) => m.entries);
    expect(entries.map((e: Json) => e.event)).toEqual([
      `${p}.a.one`,
      `${p}.a.two`,
      `${p}.a.three`,
      `${p}.a.four`,
    ]);
    for (const m of messages) {
      expect(m.stream).toBe(stream.id);
      expect(m.entries.length).toBeGreaterThan(0);
      expect(m.entries.length).toBeLessThanOrEqual(2);
      for (const e of m.entries) {
        expect(e.seq).toBeGreaterThanOrEqual(m.range.fromSeq);
        expect(e.seq).toBeLessThanOrEqual(m.range.toSeq);
        expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(e.salts).toBeDefined();
      }
      expect(m.entries.map((e: Json) => e.seq)).toEqual(
        [...m.entries.map((e: Json) => e.seq)].sort((a, b) => a - b),
      );
      if (m.checkpoint) expect(m.checkpoint.seq).toBeLessThanOrEqual(m.range.toSeq);
    }
    for (const request of r.received) {
      const m = JSON.parse(request.body);
      expect(request.headers['webhook-id']).toBe(
        `msg_${stream.id}_${m.range.fromSeq}_${m.range.toSeq}`,
      );
      expect(request.headers['content-type']).toBe('application/json');
      expect(signedWith(request, stream.secret)).toBe(true);
      expect(signedWith(request, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).toBe(false);
    }
    // The entry shown is the entry of GET /v1/logs/{id}.
    const first = entries[0];
    expect((await api('GET', `/v1/logs/${first.id}`)).body.data).toEqual(first);
    await waitFor(
      'progress stored',
      async () => (await get(stream.id)).deliveredThroughSeq >= entries[3].seq,
    );
    const shown = await get(stream.id);
    expect(shown).toMatchObject({ status: 'active', consecutiveFailures: 0, lastError: null });
    expect(shown.secret).toBeUndefined();
    const deliveries = (await api('GET', `/v1/log-streams/${stream.id}/deliveries`)).body.data;
    expect(deliveries[0]).toMatchObject({ attempt: 1, httpStatus: 204 });
  });

  it('sends every shape of entry as GET /v1/logs/{id} shows it, to webhooks and Splunk HEC', async () => {
    const p = prefix();
    const hook = await receiver();
    const hec = await receiver();
    const filter = { events: [`${p}.*`] };
    const { secret } = await create({
      name: `${p} hook`,
      destination: { type: 'webhook', url: hook.url },
      filter,
    });
    await create({
      name: `${p} hec`,
      destination: { type: 'splunk_hec', url: hec.url, token: `hec-${p}-token` },
      filter,
    });
    const shapes: Json[] = [
      { event: `${p}.bare`, actor: { type: 'system' }, result: 'success' },
      {
        event: `${p}.full`,
        actor: { id: 'user_1', type: 'user', email: 'Ünïcode+"quoted"@example.com' },
        target: { type: 'document' },
        context: {
          ip: '2001:db8::1',
          userAgent: 'curl/8 \\ "agent"\n',
          location: {
            city: 'Zürich',
            country: 'CH',
            region: 'ZH',
            coordinates: { lat: 47.3769, lng: -8.5e-7 },
          },
        },
        result: 'failure',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        timestamp: '2026-11-27T10:00:00.5Z',
        metadata: {
          '10': 'integer-like keys come first in JavaScript',
          '2': ['a', 1.5, -3, 1e21, 0.000001, true, null, { deep: { deeper: [] } }],
          long: 'x'.repeat(2000),
          line: 'a\u2028b\u0001c\ttab 😀 </script>',
          empty: {},
          big: 12345678901234567000,
        },
      },
      {
        event: `${p}.partial`,
        actor: { type: 'service', id: 'svc' },
        target: { id: 'doc_1' },
        context: { ip: '10.0.0.1', location: { city: 'Oslo' } },
        result: 'success',
      },
    ];
    // Metadata as raw JSON text: spellings of numbers and keys that JSON.stringify never writes
    // (a number beyond a double, `1e400`, is refused: test/security/strict-input.test.ts).
    const rawMetadata = `{"n1": 1.0, "n2": -0, "n3": 1e21, "n4": 5e-324, "n5": 1E-7, "n6": 100e-2,
      "n7": 123456789012345678901234567890, "": "empty key", "01": "leading zero",
      "toString": 1, "dup": 1, "dup": 2, "esc": "\\u002F \\/ \\b\\f \\u007f \\u2029 \\ufeff \\uD83D\\uDE00"}`;
    shapes.push({ event: `${p}.raw`, actor: { type: 'system' }, result: 'success' });
    const body = JSON.stringify({ entries: shapes }).replace(
      /}]}$/,
      `,"metadata":${rawMetadata}}]}`,
    );
    const { status } = await api('POST', '/v1/logs', body);
    expect(status).toBe(201);
    await server.sealer.flush();
    await waitFor('the hook', () => hook.messages().flatMap((m) => m.entries).length >= 4);
    await waitFor('the HEC', () => hec.received.length >= 1);
    const events = hec.received
      .flatMap((r) => r.body.replace(/}{"time"/g, '}\n{"time"').split('\n'))
      .map((line) => JSON.parse(line).event);
    const sent = hook.messages().flatMap((m) => m.entries);
    expect(sent.map((e: Json) => e.event)).toEqual(shapes.map((s) => s.event));
    expect(events).toEqual(sent);
    for (const entry of sent)
      expect(entry).toEqual((await api('GET', `/v1/logs/${entry.id}`)).body.data);
    // A receiver's own checks accept every message: signatures, chain and checkpoints.
    const verifier = await StreamVerifier.create({
      publicKeyPem: (await api('GET', '/v1/logs/public-key')).body.data.publicKey,
      filtered: true,
    });
    for (const request of hook.received) {
      const { id } = await verifyWebhookSignature(secret, request.headers, request.body);
      expect((await verifier.add(JSON.parse(request.body), id)).status).toBe('verified');
    }
  });

  it('sends Splunk HEC events with the token, index and sourcetype', async () => {
    const p = prefix();
    const r = await receiver();
    const token = `hec-token-${p}-0f5e4c3a`;
    const stream = await create({
      name: `${p} splunk`,
      destination: { type: 'splunk_hec', url: r.url, token, index: 'security' },
      filter: { events: [`${p}.*`] },
    });
    expect(stream.secret).toBeUndefined();
    expect(stream.destination).toEqual({
      type: 'splunk_hec',
      url: r.url,
      index: 'security',
      sourcetype: 'secadmin:audit',
    });
    await ingest([`${p}.one`, `${p}.two`]);
    await waitFor('a HEC request', () => r.received.length >= 1);
    const request = r.received[0];
    expect(request?.headers.authorization).toBe(`Splunk ${token}`);
    expect(request?.headers['webhook-signature']).toBeUndefined();
    const events = (request?.body ?? '')
      .replace(/}{"time"/g, '}\n{"time"')
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.event.event)).toEqual([`${p}.one`, `${p}.two`]);
    for (const e of events) {
      expect(e).toMatchObject({
        source: 'secadmin',
        sourcetype: 'secadmin:audit',
        index: 'security',
      });
      expect(e.time).toBe(Date.parse(e.event.timestamp) / 1000);
    }
  });

  it('retries the same batch after 500s and recovers: failing after three, then active', async () => {
    const p = prefix();
    const r = await receiver((_, i) => (i < 4 ? { status: 500 } : { status: 200 }));
    const stream = await create({
      name: `${p} flaky`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingest([`${p}.one`]);
    await waitFor('a success', () => r.received.length >= 5);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect(new Set(r.received.map((x) => x.body)).size).toBeLessThanOrEqual(2); // only the checkpoint may be newer
    await waitFor('recovered', async () => (await get(stream.id)).consecutiveFailures === 0);
    const shown = await get(stream.id);
    expect(shown.status).toBe('active');
    expect(shown.lastError).toMatchObject({ httpStatus: 500 });
    const deliveries = (await api('GET', `/v1/log-streams/${stream.id}/deliveries`)).body.data;
    expect(deliveries.map((d: Json) => d.attempt)).toEqual([5, 4, 3, 2, 1]);
    expect(deliveries.map((d: Json) => d.httpStatus)).toEqual([200, 500, 500, 500, 500]);
  });

  it('is failing after three failures in a row, and shows it', async () => {
    const p = prefix();
    const r = await receiver(() => ({ status: 503 }));
    const stream = await create({
      name: `${p} down`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingest([`${p}.one`]);
    await waitFor('failing', async () => (await get(stream.id)).status === 'failing');
    expect((await get(stream.id)).consecutiveFailures).toBeGreaterThanOrEqual(3);
    r.setReply(() => ({ status: 204 }));
    await waitFor('active again', async () => (await get(stream.id)).status === 'active', 20_000);
  });

  it('waits what a 429 Retry-After says before sending the batch again', async () => {
    const p = prefix();
    const r = await receiver((_, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 },
    );
    await create({
      name: `${p} limited`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingest([`${p}.one`]);
    await waitFor('the retry', () => r.received.length >= 2);
    const [a, b] = r.received as [Received, Received];
    // retryMaxMs is 100 here: only Retry-After explains a wait of a second.
    expect(b.at - a.at).toBeGreaterThanOrEqual(900);
    expect(b.headers['webhook-id']).toBe(a.headers['webhook-id']);
  });

  it('disables a webhook that answers 410, with a stream.disabled entry', async () => {
    const p = prefix();
    const r = await receiver(() => ({ status: 410 }));
    const stream = await create({
      name: `${p} gone`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingest([`${p}.one`]);
    await waitFor('disabled', async () => (await get(stream.id)).status === 'disabled');
    expect(r.received).toHaveLength(1);
    const logs = (await api('GET', '/v1/logs?events=stream.disabled&limit=100')).body.data;
    expect(logs.some((e: Json) => e.target?.id === stream.id)).toBe(true);
  });

  it('sends the batch again after a receiver stalls past the timeout', async () => {
    const p = prefix();
    const r = await receiver((_, i) => (i === 0 ? 'stall' : { status: 204 }));
    const stream = await create({
      name: `${p} stall`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await ingest([`${p}.one`]);
    await waitFor('the retry', () => r.received.length >= 2);
    await waitFor(
      'delivered',
      async () =>
        (await get(stream.id)).consecutiveFailures === 0 &&
        (await get(stream.id)).lastDeliveryAt !== null,
    );
    expect((await get(stream.id)).lastError.message).toMatch(/no answer within/);
  });

  it('pauses, resumes where it stopped, and replays from a seq', async () => {
    const p = prefix();
    const r = await receiver();
    const witness = await receiver();
    const stream = await create({
      name: `${p} paused`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    await create({
      name: `${p} witness`,
      destination: { type: 'webhook', url: witness.url },
      filter: { events: [`${p}.*`] },
    });
    const paused = await api('PATCH', `/v1/log-streams/${stream.id}`, { status: 'paused' });
    expect(paused.body.data.status).toBe('paused');
    await ingest([`${p}.one`, `${p}.two`]);
    // The witness stream got them: the paused one had every chance and sent nothing.
    await waitFor('the witness', () => witness.messages().flatMap((m) => m.entries).length >= 2);
    expect(r.received).toHaveLength(0);
    expect(
      (await api('PATCH', `/v1/log-streams/${stream.id}`, { status: 'active' })).body.data.status,
    ).toBe('active');
    await waitFor('resumed', () => r.messages().flatMap((m) => m.entries).length >= 2);
    const firstSeq = r.messages()[0].entries[0].seq;
    const firstId = r.received[0]?.headers['webhook-id'];
    const replayed = await api('POST', `/v1/log-streams/${stream.id}/replay`, {
      fromSeq: firstSeq,
    });
    expect(replayed.status).toBe(200);
    await waitFor('replayed', () => r.messages().flatMap((m) => m.entries).length >= 4);
    const events = r.messages().flatMap((m) => m.entries.map((e: Json) => e.event));
    expect(events).toEqual([`${p}.one`, `${p}.two`, `${p}.one`, `${p}.two`]);
    expect(r.received.at(-1)?.headers['webhook-id']).not.toBe(undefined);
    expect(r.received.map((x) => x.headers['webhook-id'])).toContain(firstId);
  });

  /**
   * A stream of batches of 2 on `${p}.*` whose receiver holds the first message until
   * `release`; answers once `events` are ingested and that message is in flight.
   */
  async function firstBatchInFlight(p: string, events: (string | Json)[]) {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = await receiver(async (_request, index) => {
      if (index === 0) await released;
      return { status: 204 };
    });
    const stream = await create({
      name: `${p} in flight`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
      batchSize: 2,
    });
    await ingest(events);
    await waitFor('the first batch', () => r.received.length === 1);
    return { r, stream, release };
  }

  const eventsOf = (r: Receiver) => r.messages().map((m) => m.entries.map((e: Json) => e.event));

  it('applies a filter changed while a batch is in flight to the very next batch', async () => {
    const p = prefix();
    const { r, stream, release } = await firstBatchInFlight(
      p,
      [1, 2, 3].flatMap((n) => [`${p}.keep${n}`, `${p}.drop${n}`]),
    );
    const changed = await api('PATCH', `/v1/log-streams/${stream.id}`, {
      filter: { events: [`${p}.keep*`] },
    });
    expect(changed.status).toBe(200);
    release();
    await waitFor('the rest', () => r.messages().flatMap((m) => m.entries).length >= 4);
    expect(eventsOf(r)).toEqual([
      [`${p}.keep1`, `${p}.drop1`],
      [`${p}.keep2`, `${p}.keep3`],
    ]);
  });

  it('applies a replay posted while a batch is in flight to the very next batch', async () => {
    const p = prefix();
    const { r, stream, release } = await firstBatchInFlight(
      p,
      [1, 2, 3, 4].map((n) => `${p}.e${n}`),
    );
    const replayed = await api('POST', `/v1/log-streams/${stream.id}/replay`, {
      fromSeq: r.messages()[0].entries[0].seq,
    });
    expect(replayed.status).toBe(200);
    release();
    await waitFor('the rest', () => r.messages().flatMap((m) => m.entries).length >= 6);
    expect(eventsOf(r)).toEqual([
      [`${p}.e1`, `${p}.e2`],
      [`${p}.e1`, `${p}.e2`],
      [`${p}.e3`, `${p}.e4`],
    ]);
  });

  it('sends what a user deletion redacted while a batch was in flight redacted', async () => {
    const p = prefix();
    const email = uniqueEmail('Streamed');
    const created = await api('POST', '/v1/users', { email, name: 'Streamed' });
    expect(created.status).toBe(201);
    const byUser = (n: number) => ({
      event: `${p}.u${n}`,
      actor: { type: 'user', id: created.body.data.id, email },
      result: 'success',
      metadata: { note: `as ${email}` },
    });
    const { r, release } = await firstBatchInFlight(p, [1, 2, 3, 4].map(byUser));
    expect((await api('DELETE', `/v1/users/${created.body.data.id}`)).status).toBe(204);
    release();
    // The batch after the held one (a loaded machine may time the held one out and send it again).
    const second = () =>
      r.messages().find((m) => m.entries.some((e: Json) => e.event === `${p}.u3`));
    await waitFor('the second batch', () => second() !== undefined);
    expect(second().entries.map((e: Json) => e.event)).toEqual([`${p}.u3`, `${p}.u4`]);
    expect(JSON.stringify(second()).toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('signs with both secrets after a rotation, and sends a signed test message', async () => {
    const p = prefix();
    const r = await receiver();
    const stream = await create({
      name: `${p} rotated`,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${p}.*`] },
    });
    const rotated = await api('POST', `/v1/log-streams/${stream.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const secret = rotated.body.data.secret;
    expect(secret).not.toBe(stream.secret);
    await ingest([`${p}.one`]);
    await waitFor('a message', () => r.received.length >= 1);
    const request = r.received[0] as Parameters<typeof signedWith>[0];
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(signedWith(request, secret)).toBe(true);
    expect(signedWith(request, stream.secret)).toBe(true);
    const test = await api('POST', `/v1/log-streams/${stream.id}/test`);
    expect(test.body.data).toMatchObject({ delivered: true, httpStatus: 204 });
    const sent = r.received.at(-1) as Parameters<typeof signedWith>[0];
    expect(JSON.parse(sent.body)).toEqual({ type: 'secadmin.test', stream: stream.id });
    expect(sent.headers['webhook-id']).toMatch(new RegExp(`^msg_${stream.id}_test_[0-9a-z]{26}$`));
    expect(signedWith(sent, secret)).toBe(true);
    const splunk = await create({
      name: `${p} hec`,
      destination: { type: 'splunk_hec', url: r.url, token: 'tok' },
    });
    expect((await api('POST', `/v1/log-streams/${splunk.id}/rotate-secret`)).status).toBe(400);
  });

  it('lists, refuses bad input naming the field, 409 on a duplicate name, 404, 403, and deletes', async () => {
    const p = prefix();
    const r = await receiver();
    const body = { name: `${p} crud`, destination: { type: 'webhook', url: r.url } };
    const stream = await create(body);
    expect((await api('POST', '/v1/log-streams', body)).status).toBe(409);
    for (const [bad, field] of [
      [{ ...body, name: 42 }, 'body.name'],
      [{ ...body, batchSize: 0 }, 'body.batchSize'],
      [{ ...body, batchSize: 1001 }, 'body.batchSize'],
      [{ ...body, batchSize: '5' }, 'body.batchSize'],
      [{ ...body, startAt: 'later' }, 'body.startAt'],
      [{ ...body, destination: { type: 'ftp', url: r.url } }, 'body.destination'],
      [{ ...body, filter: { events: ['UPPER'] } }, 'body.filter'],
      [{ ...body, extra: true }, 'body'],
    ] as const) {
      const res = await api('POST', '/v1/log-streams', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(res.body.error.details), JSON.stringify(bad)).toContain(field);
    }
    expect((await api('PATCH', `/v1/log-streams/${stream.id}`, { status: 'failing' })).status).toBe(
      400,
    );
    expect((await api('PATCH', `/v1/log-streams/${stream.id}`, {})).status).toBe(400);
    const list = await api('GET', '/v1/log-streams?limit=100');
    expect(list.body.data.map((s: Json) => s.id)).toContain(stream.id);
    expect((await api('GET', '/v1/log-streams/lst_00000000000000000000000000')).status).toBe(404);
    const key = await createKey(server.client, `service:${p}`);
    expect((await api('GET', '/v1/log-streams', undefined, key.secret)).status).toBe(403);
    expect(
      (await api('POST', '/v1/log-streams', { ...body, name: `${p} other` }, key.secret)).status,
    ).toBe(403);
    expect((await api('DELETE', `/v1/log-streams/${stream.id}`)).status).toBe(204);
    expect((await api('GET', `/v1/log-streams/${stream.id}`)).status).toBe(404);
  });

  it('never shows a secret or token after creation', async () => {
    const p = prefix();
    const r = await receiver();
    const token = `tok-${p}-never-shown`;
    const hook = await create({ name: `${p} s1`, destination: { type: 'webhook', url: r.url } });
    const hec = await create({
      name: `${p} s2`,
      destination: { type: 'splunk_hec', url: r.url, token },
    });
    const rotated = (await api('POST', `/v1/log-streams/${hook.id}/rotate-secret`)).body.data
      .secret;
    const since = responses.length;
    for (const id of [hook.id, hec.id]) {
      await api('GET', `/v1/log-streams/${id}`);
      await api('PATCH', `/v1/log-streams/${id}`, { batchSize: 7 });
      await api('POST', `/v1/log-streams/${id}/replay`, { fromSeq: 1 });
      await api('GET', `/v1/log-streams/${id}/deliveries`);
      await api('POST', `/v1/log-streams/${id}/test`);
    }
    await api('GET', '/v1/log-streams?limit=100');
    await api('GET', '/v1/logs?limit=100');
    const later = responses.slice(since).join('\n');
    for (const secret of [hook.secret, rotated, token, hook.secret.slice(6), rotated.slice(6)])
      expect(later).not.toContain(secret);
  });

  it('refuses destinations that are not public, naming destination.url, when private networks are not allowed', async () => {
    server = await server.restart({ streams: { ...STREAMS, allowPrivateNetworks: false } });
    const p = prefix();
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.0.0.1/hook',
      'https://192.168.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://[::1]/hook',
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::127.0.0.1]/x',
      'https://[::10.0.0.1]/x',
      'https://[64:ff9b::127.0.0.1]/hook',
      'https://[64:ff9b:1:a00:1::]/hook',
      'https://[2002:7f00:1::1]/hook',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
      'https://[2a00:1450:4001:81d::5efe:7f00:1]/hook',
      'https://0.0.0.0/hook',
      'http://93.184.216.34/hook',
    ]) {
      const res = await api('POST', '/v1/log-streams', {
        name: `${p} ${url}`,
        destination: { type: 'webhook', url },
      });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details, url).toEqual([
        expect.objectContaining({ field: 'body.destination.url' }),
      ]);
    }
    const list = await api('GET', '/v1/log-streams?limit=100');
    expect(list.body.data.filter((s: Json) => s.name.startsWith(p))).toEqual([]);
  });
});
