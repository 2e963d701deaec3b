import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, createUser, failure, uniqueEmail, uniqueName } from '../helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../helpers/server.js';

/** docs/errors.md "Strict input": each refused request is a 400 naming the field, and stores nothing. */
describe('strict input', () => {
  let server: TestServer;
  const send = (method: string, path: string, body?: unknown) =>
    raw(server, path, {
      method,
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  async function expect400(res: Response, field: string): Promise<void> {
    const text = await res.text();
    expect(res.status, text).toBe(400);
    const body = JSON.parse(text);
    expect(body.error.code).toBe('invalid_request');
    const fields = (body.error.details as { field: string }[]).map((d) => d.field);
    expect(
      fields.some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)),
      `${fields}`,
    ).toBe(true);
  }
  const userCount = async () =>
    (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]?.n;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  describe('type coercion (item 3)', () => {
    it('refuses JSON values of the wrong type instead of converting them', async () => {
      const user = await createUser(server.client, { name: 'Kept' });
      const before = await userCount();
      await expect400(
        await send('POST', '/v1/users', { email: uniqueEmail(), name: 42 }),
        'body.name',
      );
      await expect400(await send('PATCH', `/v1/users/${user.id}`, { name: null }), 'body.name');
      await expect400(await send('PATCH', `/v1/users/${user.id}`, { name: true }), 'body.name');
      await expect400(
        await send('POST', '/v1/logs/export', {
          from: '2026-01-01',
          to: '2027-01-01',
          includeMetadata: 'false',
        }),
        'body.includeMetadata',
      );
      await expect400(await send('POST', '/v1/logs/search', { query: 12345 }), 'body.query');
      await expect400(
        await send('POST', '/v1/logs/search', { query: 'x', limit: '5' }),
        'body.limit',
      );
      expect(await userCount()).toBe(before);
      const { data } = await server.client.GET('/v1/users/{id}', {
        params: { path: { id: user.id } },
      });
      expect(data?.data.name).toBe('Kept');
    });

    it('parses query integers in plain decimal only', async () => {
      for (const limit of ['0x10', '1e1', '10.0', '+10', ' 10', '10 ', '010x', '']) {
        await expect400(
          await send('GET', `/v1/users?limit=${encodeURIComponent(limit)}`),
          'query.limit',
        );
        await expect400(
          await send('GET', `/v1/logs?limit=${encodeURIComponent(limit)}`),
          'query.limit',
        );
      }
      expect((await send('GET', '/v1/users?limit=10')).status).toBe(200);
      expect((await send('GET', '/v1/users?limit=10&limit=11')).status).toBe(400);
    });
  });

  describe('hostile keys (item 4)', () => {
    it('refuses __proto__, constructor and prototype keys anywhere, and stores nothing', async () => {
      const user = await createUser(server.client, { metadata: { team: 'red' } });
      const big = 'x'.repeat(900_000);
      await expect400(
        await send('PATCH', `/v1/users/${user.id}`, `{"metadata":{"__proto__":{"big":"${big}"}}}`),
        'body.metadata.__proto__',
      );
      await expect400(
        await send('PATCH', `/v1/users/${user.id}`, '{"__proto__":{"isRoot":true}}'),
        'body.__proto__',
      );
      await expect400(
        await send('PATCH', `/v1/users/${user.id}`, {
          metadata: { a: { constructor: { prototype: 1 } } },
        }),
        'body.metadata.a.constructor',
      );
      await expect400(
        await send('POST', '/v1/logs', {
          entries: [
            {
              event: 'a.b',
              actor: { type: 'user' },
              result: 'success',
              metadata: { prototype: 1 },
            },
          ],
        }),
        'body.entries[0].metadata.prototype',
      );
      const stored = await server.db.query<{ metadata: unknown }>(
        'SELECT metadata FROM users WHERE id = $1',
        [user.id],
      );
      expect(stored[0]?.metadata).toEqual({ team: 'red' });
    });
  });

  describe('nesting depth (item 5)', () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    it('accepts 32 levels and refuses 33 or 10,000 with a 400, never a 500', async () => {
      const user = await createUser(server.client);
      // The body is level 1 and `metadata` level 2: 30 more objects inside it make 32.
      expect(
        (await send('PATCH', `/v1/users/${user.id}`, `{"metadata":${nested(31)}}`)).status,
      ).toBe(200);
      await expect400(
        await send('PATCH', `/v1/users/${user.id}`, `{"metadata":${nested(32)}}`),
        'body.metadata',
      );
      await expect400(
        await send('PATCH', `/v1/users/${user.id}`, `{"metadata":${nested(10_000)}}`),
        'body.metadata',
      );
      // With an Idempotency-Key (the client sends one on every POST), the body is fingerprinted
      // too: only once its depth is known to be bounded.
      const deepPost = await raw(server, '/v1/users', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.rootKey}`,
          'content-type': 'application/json',
          'idempotency-key': `deep-${Date.now()}`,
        },
        body: `{"email":"${uniqueEmail()}","metadata":${nested(10_000)}}`,
      });
      await expect400(deepPost, 'body.metadata');
      const deepArray = `{"metadata":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
      await expect400(await send('PATCH', `/v1/users/${user.id}`, deepArray), 'body.metadata.a');
    });
  });

  describe('forged cursors (item 6)', () => {
    const forge = (cursor: string, change: (value: Record<string, unknown>) => void) => {
      const [payload, ...rest] = cursor.split('.');
      const value = JSON.parse(Buffer.from(payload as string, 'base64url').toString('utf8'));
      change(value);
      return [Buffer.from(JSON.stringify(value)).toString('base64url'), ...rest].join('.');
    };
    it('refuses a cursor with any field altered, or from another list', async () => {
      await createUser(server.client);
      await createUser(server.client);
      await server.client.POST('/v1/logs', {
        body: {
          entries: [1, 2, 3].map(() => ({
            event: 'cursor.forge',
            actor: { type: 'user' },
            result: 'success' as const,
          })),
        },
      });
      await server.searchable();
      const users = await json(await send('GET', '/v1/users?limit=1'));
      const logs = await json(await send('GET', '/v1/logs?limit=1'));
      const search = await json(
        await send('POST', '/v1/logs/search', { query: 'cursor', limit: 1 }),
      );
      const cursors = {
        users: users.pagination.nextCursor as string,
        logs: logs.pagination.nextCursor as string,
        search: search.pagination.nextCursor as string,
      };
      for (const cursor of Object.values(cursors)) expect(cursor).toEqual(expect.any(String));
      const maxTime = (v: Record<string, unknown>) => {
        v.t = 9007199254740991;
      };
      const otherId = (v: Record<string, unknown>) => {
        v.i = String(v.i).replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      };
      for (const change of [maxTime, otherId]) {
        await expect400(
          await send('GET', `/v1/users?limit=1&cursor=${forge(cursors.users, change)}`),
          'query.cursor',
        );
        await expect400(
          await send('GET', `/v1/logs?limit=1&cursor=${forge(cursors.logs, change)}`),
          'query.cursor',
        );
        await expect400(
          await send('POST', '/v1/logs/search', {
            query: 'cursor',
            limit: 1,
            cursor: forge(cursors.search, change),
          }),
          'body.cursor',
        );
      }
      await expect400(await send('GET', `/v1/users?cursor=${cursors.logs}`), 'query.cursor');
      await expect400(
        await send('POST', '/v1/logs/search', { query: 'cursor', cursor: cursors.logs }),
        'body.cursor',
      );
      expect((await send('GET', `/v1/users?limit=1&cursor=${cursors.users}`)).status).toBe(200);
    });
  });

  describe('look-alike names and malformed emails (item 7)', () => {
    it('stores names NFC-normalized and compares them NFC for uniqueness', async () => {
      const base = uniqueName('caf');
      const nfc = `${base}\u00e9`;
      const nfd = `${base}e\u0301`;
      const policy = await createPolicy(server.client, { name: nfc });
      expect(policy.name).toBe(nfc);
      const duplicate = await failure(createPolicy(server.client, { name: nfd }));
      expect(duplicate.status).toBe(409);
      const user = await createUser(server.client, { name: `Jos${'e\u0301'}` });
      expect(user.name).toBe('Jos\u00e9');
    });

    it('refuses control and bidirectional characters in names', async () => {
      for (const bad of ['evil\u202Egnp.exe', 'a\u2066b', 'tab\there', 'bell\u0007', 'c1\u0085x']) {
        await expect400(
          await send('POST', '/v1/users', { email: uniqueEmail(), name: bad }),
          'body.name',
        );
        await expect400(
          await send('POST', '/v1/policies', {
            name: bad,
            effect: 'allow',
            principals: ['*'],
            actions: ['a:b'],
            resources: ['x'],
          }),
          'body.name',
        );
        await expect400(
          await send('POST', '/v1/policies', {
            name: uniqueName(),
            description: bad,
            effect: 'allow',
            principals: ['*'],
            actions: ['a:b'],
            resources: ['x'],
          }),
          'body.description',
        );
        await expect400(
          await send('POST', '/v1/api-keys', { name: bad, principal: 'service:x' }),
          'body.name',
        );
      }
    });

    it('refuses emails that are not a dot-atom at a domain of two labels or more', async () => {
      const before = await userCount();
      for (const email of [
        'a..b@example.com',
        '.a@example.com',
        'a.@example.com',
        'a@b',
        'a@.example.com',
        'a b@example.com',
      ]) {
        await expect400(await send('POST', '/v1/users', { email }), 'body.email');
      }
      expect(await userCount()).toBe(before);
      expect((await send('POST', '/v1/users', { email: uniqueEmail("o'brien+tag") })).status).toBe(
        201,
      );
    });
  });

  describe('highlight keys (item 8)', () => {
    it('escapes a highlights key built from a metadata key', async () => {
      const term = `svgterm${Date.now()}`;
      await server.client.POST('/v1/logs', {
        body: {
          entries: [
            {
              event: 'a.b',
              actor: { type: 'user' },
              result: 'success',
              metadata: { '<svg onload=alert(2)>': term },
            },
          ],
        },
      });
      await server.searchable();
      const { data } = await server.client.POST('/v1/logs/search', { body: { query: term } });
      const keys = Object.keys(data?.data[0]?.highlights ?? {});
      expect(keys).toEqual(['metadata.&lt;svg onload=alert(2)&gt;']);
    });
  });

  describe('found by the attack on the first version', () => {
    it('refuses an over-long array at once, with a bounded answer', async () => {
      const before = await userCount();
      const res = await send('POST', '/v1/logs', { entries: Array(400_000).fill(1) });
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(text.length).toBeLessThan(10_000);
      expect(JSON.parse(text).error.details).toEqual([
        { field: 'body.entries', message: 'must NOT have more than 1000 items' },
      ]);
      const roles = await send('POST', '/v1/users', {
        email: uniqueEmail(),
        roles: Array(200_000).fill(1),
      });
      expect(roles.status).toBe(400);
      expect((await roles.text()).length).toBeLessThan(10_000);
      expect(await userCount()).toBe(before);
    });

    it('refuses bracketed, repeated and reserved query keys instead of dropping them', async () => {
      for (const query of [
        'events[x]=a.b',
        'events[a][b]=a.b',
        'events=a.b&events=c.d',
        'email[__proto__]=x',
        'a[__proto__][x]=1',
      ])
        expect(
          (await send('GET', `/v1/${query.startsWith('email') ? 'users' : 'logs'}?${query}`))
            .status,
          query,
        ).toBe(400);
    });

    it('refuses unpaired surrogates anywhere in a body, never a 500 or a silent rewrite', async () => {
      const user = await createUser(server.client);
      for (const [method, path, body, field] of [
        [
          'POST',
          '/v1/users',
          `{"email":"${uniqueEmail()}","metadata":{"a":"x\\ud800"}}`,
          'body.metadata.a',
        ],
        ['PATCH', `/v1/users/${user.id}`, '{"metadata":{"\\udc00":"x"}}', 'body.metadata'],
        [
          'POST',
          '/v1/policies',
          `{"name":"p\\ud800${Date.now()}","effect":"allow","principals":["*"],"actions":["a:b"],"resources":["x"]}`,
          'body.name',
        ],
        [
          'POST',
          '/v1/logs',
          '{"entries":[{"event":"a.b","actor":{"type":"user","id":"\\udbff"},"result":"success"}]}',
          'body.entries[0].actor.id',
        ],
      ] as const)
        await expect400(await send(method, path, body), field);
    });

    it('refuses a number beyond the range of a double instead of storing it as null', async () => {
      const before = (
        await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM log_entries')
      )[0]?.n;
      await expect400(
        await send(
          'POST',
          '/v1/logs',
          '{"entries":[{"event":"a.b","actor":{"type":"user"},"result":"success","metadata":{"big":1e400,"small":-1e999}}]}',
        ),
        'body.entries[0].metadata.big',
      );
      await expect400(
        await send('POST', '/v1/users', `{"email":"${uniqueEmail()}","metadata":{"n":[1,2e308]}}`),
        'body.metadata.n[1]',
      );
      const after = (
        await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM log_entries')
      )[0]?.n;
      expect(after).toBe(before);
    });

    it('checks name lengths after NFC normalization: the limit holds for what is stored', async () => {
      // U+FB2C is one character that NFC turns into three.
      await expect400(
        await send('POST', '/v1/policies', {
          name: '\ufb2c'.repeat(128),
          effect: 'allow',
          principals: ['*'],
          actions: ['a:b'],
          resources: ['x'],
        }),
        'body.name',
      );
      await expect400(
        await send('POST', '/v1/users', { email: uniqueEmail(), name: '\u0958'.repeat(200) }),
        'body.name',
      );
      const fits = await send('POST', '/v1/users', {
        email: uniqueEmail(),
        name: '\u0958'.repeat(100),
      });
      expect(fits.status).toBe(201);
      expect((await json(fits)).data.name).toBe('\u0958'.repeat(100).normalize('NFC'));
    });

    it('refuses every other spelling of a cursor, and a cursor of another filter', async () => {
      await createUser(server.client, { roles: ['cursor-role'] });
      await createUser(server.client, { roles: ['cursor-role'] });
      const page = await json(await send('GET', '/v1/users?limit=1'));
      const cursor = page.pagination.nextCursor as string;
      const last = cursor.at(-1) as string;
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      for (const other of alphabet.replace(last, ''))
        expect(
          (await send('GET', `/v1/users?limit=1&cursor=${cursor.slice(0, -1)}${other}`)).status,
        ).toBe(400);
      await expect400(
        await send('GET', `/v1/users?limit=1&role=cursor-role&cursor=${cursor}`),
        'query.cursor',
      );
    });
  });

  describe('instants out of range (issue 20 L4)', () => {
    /** Past either end in UTC: year 0000, and offsets that carry 0001 or 9999 over the edge. */
    const outOfRange = [
      '0000-01-01T00:00:00Z',
      '0000-12-31',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:30:00-01:00',
    ];
    const exportCount = async () =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM exports'))[0]?.n;

    it('refuses them with a 400 naming the field wherever an instant is accepted', async () => {
      const exports = await exportCount();
      const users = await userCount();
      for (const instant of outOfRange) {
        const q = encodeURIComponent(instant);
        await expect400(await send('GET', `/v1/logs?from=${q}`), 'query.from');
        await expect400(await send('GET', `/v1/logs?to=${q}`), 'query.to');
        await expect400(
          await send('POST', '/v1/logs/search', { query: 'x', from: instant }),
          'body.from',
        );
        await expect400(
          await send('POST', '/v1/logs/search', { query: 'x', to: instant }),
          'body.to',
        );
        await expect400(
          await send('POST', '/v1/logs/export', { from: instant, to: '2030-01-01' }),
          'body.from',
        );
        await expect400(
          await send('POST', '/v1/logs/export', { from: '2026-01-01', to: instant }),
          'body.to',
        );
        await expect400(
          await send('POST', '/v1/logs', {
            entries: [
              {
                event: 'range.probe',
                actor: { type: 'system' },
                result: 'success',
                timestamp: instant,
              },
            ],
          }),
          'body.entries[0].timestamp',
        );
        await expect400(
          await send('POST', '/v1/api-keys', {
            name: 'range probe',
            principal: 'service:range',
            expiresAt: instant,
          }),
          'body.expiresAt',
        );
        await expect400(
          await send('POST', '/v1/policies', {
            name: uniqueName('range'),
            effect: 'allow',
            principals: ['*'],
            actions: ['a:b'],
            resources: ['x'],
            conditions: { time: { notAfter: instant } },
          }),
          'body.conditions.time.notAfter',
        );
        await expect400(
          await send('POST', '/v1/policies/simulate', {
            principal: 'user:u',
            action: 'a:b',
            resource: 'x',
            context: { time: instant },
          }),
          'body.context.time',
        );
      }
      expect(await exportCount()).toBe(exports);
      expect(await userCount()).toBe(users);
      const stored = await server.db.query(
        "SELECT 1 FROM log_entries WHERE event = 'range.probe' UNION ALL SELECT 1 FROM api_keys WHERE name = 'range probe'",
      );
      expect(stored).toEqual([]);
    });

    it('accepts both ends of the range', async () => {
      const from = encodeURIComponent('0001-01-01T00:00:00Z');
      const to = encodeURIComponent('9999-12-31T23:59:59.999Z');
      expect((await send('GET', `/v1/logs?from=${from}&to=${to}&limit=1`)).status).toBe(200);
      const search = await send('POST', '/v1/logs/search', {
        query: 'x',
        from: '0001-01-01',
        to: '9999-12-31T23:59:59.999Z',
      });
      expect(search.status).toBe(200);
      const key = await send('POST', '/v1/api-keys', {
        name: 'far expiry',
        principal: 'service:range',
        expiresAt: '9999-12-31T23:59:59Z',
      });
      expect(key.status).toBe(201);
      expect((await json(key)).data.expiresAt).toBe('9999-12-31T23:59:59Z');
    });
  });
});
