import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, uniqueEmail } from '../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { IdempotencyRepository } from './repository.js';
import { IdempotencyService } from './service.js';

let counter = 0;
const uniqueKey = () => `kept-${Date.now()}-${counter++}`;

/** What a database reader sees of the kept rows: every column, as text. */
const keptRowsText = async (server: TestServer) =>
  JSON.stringify(
    await server.db.query<{ row: string }>(
      'SELECT row_to_json(k)::text AS row FROM idempotency_keys k',
    ),
  );

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

describe('kept idempotent responses', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const send = (method: string, path: string, apiKey: string, body?: unknown, key?: string) =>
    raw(server, path, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("seals a created key's secret: no row shows it, no other key replays it, and it is never shown after a revocation", async () => {
    const principal = `service:kept-${counter++}`;
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['apikeys:create', 'apikeys:delete'],
      resources: ['apikeys', 'apikeys/*'],
    });
    const caller = await createKey(server.client, principal);
    const other = await createKey(server.client, principal);
    const key = uniqueKey();
    const body = { name: 'made under a key', principal };

    const first = await send('POST', '/v1/api-keys', caller.secret, body, key);
    expect(first.status).toBe(201);
    const created = (await json(first)).data;
    const secretHex = Buffer.from(created.secret).toString('hex');
    const rows = await keptRowsText(server);
    expect(rows).toContain(key);
    expect(rows).not.toContain(created.secret);
    expect(rows).not.toContain(secretHex);
    expect(rows).not.toContain('secret');

    const replayed = await send('POST', '/v1/api-keys', caller.secret, body, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(replayed)).data.secret).toBe(created.secret);

    // Another key under the same Idempotency-Key: its own request, never the first one's answer.
    const theirs = await send('POST', '/v1/api-keys', other.secret, body, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(await json(theirs))).not.toContain(created.secret);

    // The created key revoked: a replay shows no secret and makes no second key.
    expect((await send('DELETE', `/v1/api-keys/${created.id}`, server.rootKey)).status).toBe(204);
    const afterRevocation = await send('POST', '/v1/api-keys', caller.secret, body, key);
    expect(afterRevocation.status).toBe(409);
    const answer = await json(afterRevocation);
    expect(answer.error.code).toBe('conflict');
    expect(JSON.stringify(answer)).not.toContain('sk_');
    const keys = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE principal = $1',
      [principal],
    );
    expect(keys[0]?.n).toBe(3); // caller, other, and the one `other` made

    // The caller revoked: its replay is a 401.
    expect((await send('DELETE', `/v1/api-keys/${caller.id}`, server.rootKey)).status).toBe(204);
    expect((await send('POST', '/v1/api-keys', caller.secret, body, key)).status).toBe(401);
  });

  it('keeps an HMAC of the request, never its SHA-256 (a password cannot be guessed from it)', async () => {
    const key = uniqueKey();
    const body = { email: uniqueEmail('fp'), name: 'Fingerprinted', password: 'correct horse' };
    expect((await send('POST', '/v1/users', server.rootKey, body, key)).status).toBe(201);
    const [row] = await server.db.query<{ fingerprint: string }>(
      'SELECT fingerprint FROM idempotency_keys WHERE idempotency_key = $1',
      [key],
    );
    const plainHash = createHash('sha256')
      .update(`POST /v1/users\n${canonicalJson(body)}`)
      .digest('hex');
    expect(row?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.fingerprint).not.toBe(plainHash);
  });

  it('keeps nothing for the POSTs that only read: a repeat runs again, an invalid key is ignored', async () => {
    const reads: [string, unknown][] = [
      ['/v1/logs/search', { query: 'user' }],
      ['/v1/policies/simulate', { principal: 'user:1', action: 'users:read', resource: 'users' }],
      [
        '/v1/policies/simulate/batch',
        { checks: [{ principal: 'user:1', action: 'users:read', resource: 'users' }] },
      ],
      ['/v1/logs/verify', {}],
    ];
    for (const [path, body] of reads) {
      const key = uniqueKey();
      for (let i = 0; i < 2; i++) {
        const res = await send('POST', path, server.rootKey, body, key);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('idempotent-replayed'), path).toBeNull();
      }
      const kept = await server.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = $1',
        [key],
      );
      expect(kept[0]?.n, path).toBe(0);
      expect((await send('POST', path, server.rootKey, body, 'caf\u00e9')).status, path).toBe(200);
    }
  });

  it("finds the kept responses that show a deleted user's email through an index", async () => {
    const key = uniqueKey();
    const email = uniqueEmail('Mentioned');
    const made = await send('POST', '/v1/users', server.rootKey, { email }, key);
    const user = (await json(made)).data;
    expect((await send('DELETE', `/v1/users/${user.id}`, server.rootKey)).status).toBe(204);
    // Forgotten: the same request under the same key is a new one (the email is free again).
    const again = await send('POST', '/v1/users', server.rootKey, { email }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();

    // Many kept responses, none about this user; the plan of the statement a deletion runs.
    await server.db.query(
      `INSERT INTO idempotency_keys
         (key_id, idempotency_key, fingerprint, created_at, status, response, response_bytes,
          principal)
       SELECT 'key_filler', 'filler-' || i, md5(i::text), now(), 201, '\\x00', 1, 'service:filler'
       FROM generate_series(1, 20000) AS i`,
    );
    await server.db.query(
      `INSERT INTO idempotency_mentions (tag, key_id, idempotency_key)
       SELECT md5(i::text), 'key_filler', 'filler-' || i FROM generate_series(1, 20000) AS i`,
    );
    const plans: string[] = [];
    const explaining = new IdempotencyRepository({
      db: server.db.prisma,
      sql: async <T>(text: string, params?: unknown[]) => {
        const rows = await server.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
        plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
        return [] as T[];
      },
    });
    await new IdempotencyService(
      { transaction: (work) => work() },
      explaining,
      'any server secret',
    ).forgetResponsesMentioning('someone.else@example.com');
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Index (Only )?Scan (using|on) idempotency_mentions_pkey/);
    expect(plans[0]).not.toMatch(/Seq Scan/);
    await server.db.query("DELETE FROM idempotency_keys WHERE key_id = 'key_filler'");
  });

  it('bounds the bytes kept per principal: past the bound a 429 with Retry-After, and nothing done', async () => {
    const bounded = await startTestServer({ idempotencyMaxKeptBytes: 2048 });
    try {
      const event = `kept.bound_${Date.now()}`;
      const batch = {
        entries: Array.from({ length: 20 }, () => ({
          event,
          actor: { type: 'system' },
          result: 'success',
        })),
      };
      const post = (key?: string) =>
        raw(bounded, '/v1/logs', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${bounded.rootKey}`,
            'content-type': 'application/json',
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: JSON.stringify(batch),
        });
      let accepted = 0;
      let refused: Response | undefined;
      for (let i = 0; i < 100 && !refused; i++) {
        const res = await post(uniqueKey());
        if (res.status === 201) accepted++;
        else refused = res;
      }
      expect(refused?.status).toBe(429);
      expect((await json(refused as Response)).error.code).toBe('rate_limited');
      expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
      const [usage] = await bounded.db.query<{ bytes: number; largest: number }>(
        'SELECT sum(response_bytes)::int AS bytes, max(response_bytes) AS largest FROM idempotency_keys',
      );
      // At most one response past the bound (the one that crossed it).
      expect(usage?.bytes).toBeLessThan(2048 + (usage?.largest ?? 0));
      const [entries] = await bounded.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM log_entries WHERE event = $1',
        [event],
      );
      expect(entries?.n).toBe(accepted * 20);
      expect((await post()).status).toBe(201);
    } finally {
      await bounded.stop();
    }
  });
});
