import { freePort } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, startTestServer, type TestServer } from '../test/helpers/server.js';

/** The value of one sample line, e.g. `secadmin_rate_limited_total` or `x_total{a="b"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  let server: TestServer;
  let scrape: () => Promise<string>;
  beforeAll(async () => {
    server = await startTestServer({ metricsPort: await freePort() });
    scrape = async () => {
      const res = await fetch(server.metricsUrl as string);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      return res.text();
    };
  });
  afterAll(() => server?.stop());

  it('serves Prometheus text on its own port, with the process metrics', async () => {
    expect(new URL(server.metricsUrl as string).port).toBe(String(server.config.metricsPort));
    const text = await scrape();
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE secadmin_http_request_duration_seconds histogram');
    expect((await raw(server, '/metrics')).status).not.toBe(200); // not on the API port
  });

  it('counts requests by operationId and status, unknown routes as unknown, and 429s', async () => {
    const before = await scrape();
    const added = (text: string, series: string) =>
      (sample(text, series) ?? 0) - (sample(before, series) ?? 0);
    const auth = { authorization: `Bearer ${server.rootKey}` };
    const secret = 'sk_never_in_a_label_0123456789abcdef';
    await raw(server, '/v1/users', { headers: auth });
    await raw(server, `/v1/no-such-route/${secret}`, { headers: auth });
    await raw(server, '/v1/users', { headers: { authorization: `Bearer ${secret}` } });
    const key = await server.client.apiKeys.create({
      name: 'limited',
      principal: 'service:metrics-test',
      plan: 'enterprise',
      rateLimitPerMinute: 1,
    });
    const limited = { authorization: `Bearer ${key.secret}` };
    // Its principal may do nothing: 403, then over its budget: 429.
    expect((await raw(server, '/v1/users', { headers: limited })).status).toBe(403);
    expect((await raw(server, '/v1/users', { headers: limited })).status).toBe(429);

    const text = await scrape();
    expect(added(text, 'secadmin_http_requests_total{operation="listUsers",status="200"}')).toBe(1);
    expect(added(text, 'secadmin_http_requests_total{operation="unknown",status="404"}')).toBe(1);
    expect(added(text, 'secadmin_http_requests_total{operation="listUsers",status="401"}')).toBe(1);
    expect(added(text, 'secadmin_http_requests_total{operation="listUsers",status="403"}')).toBe(1);
    expect(added(text, 'secadmin_rate_limited_total')).toBe(1);
    expect(added(text, 'secadmin_http_request_duration_seconds_count{operation="listUsers"}')).toBe(
      4,
    );
    expect(text).not.toContain(secret);
    expect(text).not.toContain('no-such-route');
  });

  it('counts policy decisions, ingested entries, their seal lag and exports', async () => {
    await server.client.logs.ingest({
      entries: [
        { event: 'user.login', actor: { type: 'anonymous' }, result: 'success' },
        { event: 'user.logout', actor: { type: 'anonymous' }, result: 'success' },
      ],
    });
    await server.client.policies.simulate({
      principal: 'user:user_nobody',
      action: 'users:read',
      resource: 'users/user_nobody',
    });
    await server.sealer.flush();
    const text = await scrape();
    expect(sample(text, 'secadmin_log_entries_ingested_total')).toBe(2);
    // The two ingested entries, and the service's own entries written so far.
    expect(sample(text, 'secadmin_log_seal_lag_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'secadmin_log_seal_lag_seconds_bucket{le="+Inf"}')).toBe(
      sample(text, 'secadmin_log_seal_lag_seconds_count'),
    );
    expect(
      sample(text, 'secadmin_policy_decisions_total{decision="implicit_deny"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain('# TYPE secadmin_exports_total counter');
    // Nothing was behind: no ingest waited for the sealer.
    expect(sample(text, 'secadmin_log_ingest_seal_wait_seconds_count')).toBe(0);
  });

  it('listens on 127.0.0.1 by default, even when the API listens on every interface', async () => {
    const open = await startTestServer({ host: '::', metricsPort: await freePort() });
    try {
      expect(new URL(open.metricsUrl as string).hostname).toBe('127.0.0.1');
      expect((await fetch(open.metricsUrl as string)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
