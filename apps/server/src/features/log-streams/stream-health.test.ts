import { freePort } from '@secadmin/test-infra';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../../test/helpers/receiver.js';
import { raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { waitFor } from '../../../test/helpers/wait.js';

// biome-ignore lint/suspicious/noExplicitAny: responses are inspected as JSON
type Json = any;

/**
 * What an operator watches: a stream that keeps failing ends disabled, and the metrics show
 * each stream's deliveries and lag by id, never its address or secret. On PostgreSQL, so that
 * the test can move a stream's failing start a week back.
 */
describe('log stream health', () => {
  let server: TestServer;
  const receivers: Receiver[] = [];

  async function api(method: string, path: string, body?: unknown) {
    const res = await raw(server, path, {
      method,
      headers: {
        authorization: `Bearer ${server.rootKey}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }

  async function receiver(reply: Parameters<typeof startReceiver>[0]) {
    const r = await startReceiver(reply);
    receivers.push(r);
    return r;
  }

  async function stream(name: string, r: Receiver) {
    const res = await api('POST', '/v1/log-streams', {
      name,
      destination: { type: 'webhook', url: r.url },
      filter: { events: [`${name}.*`] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; secret: string };
  }

  async function ingest(event: string) {
    const res = await api('POST', '/v1/logs', {
      entries: [{ event, actor: { id: 'svc', type: 'service' }, result: 'success' }],
    });
    expect(res.status).toBe(201);
    await server.sealer.flush();
  }

  const status = async (id: string) => (await api('GET', `/v1/log-streams/${id}`)).body.data;

  async function scrape(): Promise<string> {
    const res = await fetch(server.metricsUrl as string);
    expect(res.status).toBe(200);
    return res.text();
  }

  beforeAll(async () => {
    server = await startTestServer({
      metricsPort: await freePort(),
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

  it('disables a stream that has been failing for 7 days, with a stream.disabled entry saying so', async () => {
    const r = await receiver(() => ({ status: 503 }));
    const s = await stream('weekfail', r);
    await ingest('weekfail.one');
    await waitFor('failing', async () => (await status(s.id)).status === 'failing');
    expect((await status(s.id)).status).toBe('failing');

    const db = new pg.Client({ connectionString: server.config.databaseUrl });
    await db.connect();
    try {
      // One minute short of a week: the next failure keeps it failing.
      await db.query(
        `UPDATE log_streams SET failing_since = now() - interval '7 days' + interval '1 minute' WHERE id = $1`,
        [s.id],
      );
      const seen = r.received.length;
      await waitFor('another attempt', () => r.received.length >= seen + 2);
      expect((await status(s.id)).status).toBe('failing');

      await db.query(
        `UPDATE log_streams SET failing_since = now() - interval '7 days' WHERE id = $1`,
        [s.id],
      );
    } finally {
      await db.end();
    }
    await waitFor('disabled', async () => (await status(s.id)).status === 'disabled');
    await server.sealer.flush();
    const entries = (await api('GET', '/v1/logs?events=stream.disabled&limit=100')).body.data;
    const disabled = entries.find((e: Json) => e.target?.id === s.id);
    expect(disabled, 'a stream.disabled entry for the stream').toBeDefined();
    const detail = (await api('GET', `/v1/logs/${disabled.id}`)).body.data;
    expect(detail.metadata).toEqual({ reason: 'failing for 7 days' });

    // Disabled means no more attempts, and resuming starts them again.
    const attempts = r.received.length;
    r.setReply(() => ({ status: 204 }));
    expect(
      (await api('PATCH', `/v1/log-streams/${s.id}`, { status: 'active' })).body.data.status,
    ).toBe('active');
    await waitFor('delivered after resume', async () => (await status(s.id)).lagEntries === 0);
    expect(r.received.length).toBeGreaterThan(attempts);
  });

  it('exposes deliveries and lag per stream id in the metrics, with no address or secret', async () => {
    const r = await receiver((_, i) => (i === 0 ? { status: 500 } : { status: 204 }));
    const s = await stream('metered', r);
    await ingest('metered.one');
    await ingest('metered.two');
    const value = (text: string, series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const lag = `secadmin_stream_lag_entries{stream="${s.id}"}`;
    await waitFor('delivered', async () => value(await scrape(), lag) === 0);

    const text = await scrape();
    const deliveries = `secadmin_stream_deliveries_total{stream="${s.id}"`;
    expect(value(text, `${deliveries},outcome="failure"}`)).toBe(1);
    expect(value(text, `${deliveries},outcome="success"}`)).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(new URL(r.url).host);
    expect(text).not.toContain(s.secret);
    expect(text).not.toContain(s.secret.replace(/^whsec_/, ''));

    expect((await api('DELETE', `/v1/log-streams/${s.id}`)).status).toBe(204);
    await waitFor('its series gone', async () => !(await scrape()).includes(s.id));
  });

  it('drops the series of a stream deleted while one of its deliveries was in flight', async () => {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const r = await receiver(async () => {
      await answered;
      return { status: 204 };
    });
    const s = await stream('raced', r);
    await ingest('raced.one');
    await waitFor('a delivery in flight', () => r.received.length > 0);

    expect((await api('DELETE', `/v1/log-streams/${s.id}`)).status).toBe(204);
    answer();
    // Stopping waits for the delivery in flight to finish what it does after the answer.
    await server.streamDeliverer.stop();
    server.streamDeliverer.start();
    await waitFor('its series gone', async () => !(await scrape()).includes(s.id));
  });
});
