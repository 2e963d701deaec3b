import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy } from '../helpers/fixtures.js';
import { type Receiver, signedWith, startReceiver } from '../helpers/receiver.js';
import { raw, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: responses are inspected as JSON
type Json = any;

/**
 * docs/log-streams.md, docs/auth-and-access.md: a stream is an export that never ends, so its
 * creation, destination, filter, replay and secret need `logs:export` on `logs` besides the
 * `streams:*` right. The attacks of issue 41: a key with `streams:update` on one stream (or
 * `streams:create`) and no `logs:export` pointed a stream at its own receiver and replayed the
 * whole log, while `GET /v1/logs` gave it 403.
 */
describe('no export of the log through a stream', () => {
  let server: TestServer;
  const receivers: Receiver[] = [];
  let run = 0;
  const prefix = () => `ex${++run}`;

  async function api(method: string, path: string, body?: unknown, key?: string) {
    const res = await raw(server, path, {
      method,
      headers: {
        authorization: `Bearer ${key ?? server.rootKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }

  async function receiver() {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function ingest(events: string[]) {
    const res = await api('POST', '/v1/logs', {
      entries: events.map((event) => ({
        event,
        actor: { id: 'svc', type: 'service' },
        result: 'success',
      })),
    });
    expect(res.status).toBe(201);
    await server.sealer.flush();
  }

  /** A key of its own principal that the policies allow `actions` on `resources`. */
  async function keyWith(p: string, name: string, actions: string[], resources: string[]) {
    const principal = `service:${p}-${name}`;
    await createPolicy(server.client, { principals: [principal], actions, resources });
    return (await createKey(server.client, principal)).secret;
  }

  /** What a change to a stream would show: everything but its progress. */
  const settings = async (id: string) => {
    const { name, destination, filter, status, batchSize, updatedAt } = (
      await api('GET', `/v1/log-streams/${id}`)
    ).body.data;
    return { name, destination, filter, status, batchSize, updatedAt };
  };

  const eventsAt = (r: Receiver) =>
    r.messages().flatMap((m) => m.entries.map((e: Json) => e.event as string));

  /**
   * The operator's stream of `${p}.*` to its SIEM, which has delivered `${p}.secret`, and a
   * receiver of the attacker's own.
   */
  async function deployed(p: string) {
    const siem = await receiver();
    const attacker = await receiver();
    const created = await api('POST', '/v1/log-streams', {
      name: `${p} siem`,
      destination: { type: 'webhook', url: siem.url },
      filter: { events: [`${p}.*`] },
    });
    expect(created.status).toBe(201);
    const stream = created.body.data;
    await ingest([`${p}.secret`]);
    await waitFor('the SIEM got the entry', () => eventsAt(siem).length === 1);
    return { siem, attacker, stream };
  }

  beforeAll(async () => {
    server = await startTestServer({
      streams: {
        allowPrivateNetworks: true,
        retryBaseMs: 20,
        retryMaxMs: 100,
        timeoutMs: 1_000,
        leaseMs: 5_000,
        pollMs: 25,
      },
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await server?.stop();
  });

  it('refuses re-pointing, re-filtering and replaying a stream with streams:update alone, and changes nothing', async () => {
    const p = prefix();
    const { siem, attacker, stream } = await deployed(p);
    const key = await keyWith(p, 'narrow', ['streams:update'], [`streams/${stream.id}`]);
    expect((await api('GET', '/v1/logs?limit=1', undefined, key)).status).toBe(403);
    const before = await settings(stream.id);

    for (const [method, path, body] of [
      ['PATCH', `/v1/log-streams/${stream.id}`, { destination: { url: attacker.url } }],
      ['PATCH', `/v1/log-streams/${stream.id}`, { filter: {} }],
      ['PATCH', `/v1/log-streams/${stream.id}`, { name: `${p} x`, filter: {} }],
      ['POST', `/v1/log-streams/${stream.id}/replay`, { fromSeq: 1 }],
    ] as const) {
      const res = await api(method, path, body, key);
      expect(res.status, `${method} ${JSON.stringify(body)}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toMatch(/logs:export on logs/);
    }
    expect(await settings(stream.id)).toEqual(before);

    // The next entry reaches the SIEM, alone: no replay, and the attacker's receiver got nothing.
    await ingest([`${p}.after`]);
    await waitFor('the SIEM got the next entry', () => eventsAt(siem).length >= 2);
    expect(eventsAt(siem)).toEqual([`${p}.secret`, `${p}.after`]);
    expect(attacker.received).toEqual([]);
  });

  it('refuses rotating the secret with streams:update alone: the messages stay signed by the first secret only', async () => {
    const p = prefix();
    const { siem, stream } = await deployed(p);
    const key = await keyWith(p, 'narrow', ['streams:update'], [`streams/${stream.id}`]);
    const rotated = await api('POST', `/v1/log-streams/${stream.id}/rotate-secret`, undefined, key);
    expect(rotated.status).toBe(403);
    expect(JSON.stringify(rotated.body)).not.toContain('whsec_');
    await ingest([`${p}.after`]);
    await waitFor('the next message', () => eventsAt(siem).length >= 2);
    const last = siem.received.at(-1) as Parameters<typeof signedWith>[0];
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(signedWith(last, stream.secret)).toBe(true);
  });

  it('refuses creating a stream from the earliest entry with streams:create alone, and creates nothing', async () => {
    const p = prefix();
    const { siem, attacker } = await deployed(p);
    const key = await keyWith(p, 'creator', ['streams:create'], ['streams']);
    const res = await api(
      'POST',
      '/v1/log-streams',
      {
        name: `${p} mine`,
        destination: { type: 'webhook', url: attacker.url },
        startAt: 'earliest',
      },
      key,
    );
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/logs:export on logs/);
    const list = await api('GET', '/v1/log-streams?limit=100');
    expect(list.body.data.map((s: Json) => s.name)).not.toContain(`${p} mine`);
    await ingest([`${p}.after`]);
    await waitFor('the SIEM got the next entry', () => eventsAt(siem).length >= 2);
    expect(attacker.received).toEqual([]);
  });

  it('still lets streams:update alone rename, pause, resume and resize a stream', async () => {
    const p = prefix();
    const { stream } = await deployed(p);
    const key = await keyWith(p, 'narrow', ['streams:update'], [`streams/${stream.id}`]);
    for (const body of [
      { name: `${p} renamed`, batchSize: 7 },
      { status: 'paused' },
      { status: 'active' },
    ]) {
      const res = await api('PATCH', `/v1/log-streams/${stream.id}`, body, key);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.data).toMatchObject(body);
    }
  });

  it('lets a key that may also logs:export on logs do all of it', async () => {
    const p = prefix();
    const { siem, attacker, stream } = await deployed(p);
    const key = await keyWith(
      p,
      'exporter',
      ['streams:create', 'streams:update', 'logs:export'],
      ['streams', `streams/${stream.id}`, 'logs'],
    );
    const moved = await api(
      'PATCH',
      `/v1/log-streams/${stream.id}`,
      { destination: { url: attacker.url }, filter: { events: [`${p}.*`] } },
      key,
    );
    expect(moved.status).toBe(200);
    expect(moved.body.data.destination.url).toBe(attacker.url);
    const firstSeq = siem.messages()[0].entries[0].seq;
    expect(
      (await api('POST', `/v1/log-streams/${stream.id}/replay`, { fromSeq: firstSeq }, key)).status,
    ).toBe(200);
    await waitFor('the replay', () => eventsAt(attacker).length >= 1);
    expect(eventsAt(attacker)).toEqual([`${p}.secret`]);
    const rotated = await api('POST', `/v1/log-streams/${stream.id}/rotate-secret`, undefined, key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const created = await api(
      'POST',
      '/v1/log-streams',
      {
        name: `${p} own`,
        destination: { type: 'webhook', url: attacker.url },
        filter: { events: [`${p}.*`] },
        startAt: 'earliest',
      },
      key,
    );
    expect(created.status).toBe(201);
  });
});
