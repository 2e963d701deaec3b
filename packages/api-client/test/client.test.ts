import { describe, expect, it } from 'vitest';
import { createSecadminClient, SecadminApiError } from '../src/index.js';

const BASE = 'http://secadmin.test';

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A fetch that answers from a list of responders and records every request. */
function fakeFetch(...responders: ((req: Request) => Response | Promise<Response>)[]) {
  const requests: Request[] = [];
  const fetch = async (req: Request) => {
    requests.push(req.clone());
    const responder = responders[Math.min(requests.length - 1, responders.length - 1)];
    if (!responder) throw new Error('no responder');
    return responder(req);
  };
  return { fetch, requests };
}

const user = {
  id: 'user_01jf3k8m6q2w9x4v7t5r1n0b3c',
  email: 'ada@example.com',
  name: 'Ada',
  createdAt: '2026-11-25T21:00:00Z',
  roles: [],
};

const detail = { ...user, emailVerified: false, metadata: {}, updatedAt: user.createdAt };

describe('resource methods', () => {
  it('put path parameters in the path, the body in the body, the query in the query', async () => {
    const { fetch, requests } = fakeFetch((req) =>
      req.method === 'DELETE'
        ? new Response(null, { status: 204 })
        : json(req.method === 'POST' ? 201 : 200, {
            data: req.method === 'GET' && !req.url.includes('user_') ? [user] : detail,
            pagination: { hasMore: false },
            meta: { requestId: 'r' },
          }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    expect(await client.users.create({ email: 'ada@example.com' })).toEqual(detail);
    expect(await client.users.get(user.id)).toEqual(detail);
    expect(await client.users.update(user.id, { name: 'Ada L.' })).toEqual(detail);
    expect((await client.users.list({ role: 'admin' })).data).toEqual([user]);
    expect(await client.users.delete(user.id)).toBeUndefined();
    const sent = await Promise.all(
      requests.map(async (r) => [r.method, r.url.slice(BASE.length), await r.text()]),
    );
    expect(sent).toEqual([
      ['POST', '/v1/users', '{"email":"ada@example.com"}'],
      ['GET', `/v1/users/${user.id}`, ''],
      ['PATCH', `/v1/users/${user.id}`, '{"name":"Ada L."}'],
      ['GET', '/v1/users?role=admin', ''],
      ['DELETE', `/v1/users/${user.id}`, ''],
    ]);
  });

  it('logStreams: every log stream operation goes where the spec says, with its body', async () => {
    const stream = { id: 'lst_01kb00000000000000000000aa', name: 'siem', status: 'active' };
    const collection = (req: Request) => new URL(req.url).pathname === '/v1/log-streams';
    const { fetch, requests } = fakeFetch((req) =>
      req.method === 'DELETE'
        ? new Response(null, { status: 204 })
        : json(req.method === 'POST' && collection(req) ? 201 : 200, {
            data: collection(req) && req.method === 'GET' ? [stream] : stream,
            pagination: { hasMore: false },
            meta: { requestId: 'r' },
          }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    const id = stream.id;
    const destination = { type: 'webhook' as const, url: 'https://siem.example.com/hook' };
    expect(
      await client.logStreams.create({ name: 'siem', destination, startAt: 'earliest' }),
    ).toEqual(stream);
    expect((await client.logStreams.list({ limit: 10 })).data).toEqual([stream]);
    expect(await client.logStreams.get(id)).toEqual(stream);
    await client.logStreams.update(id, { status: 'paused' });
    await client.logStreams.replay(id, { fromSeq: 7 });
    await client.logStreams.test(id);
    await client.logStreams.rotateSecret(id);
    await client.logStreams.listDeliveries(id);
    expect(await client.logStreams.delete(id)).toBeUndefined();
    const sent = await Promise.all(
      requests.map(async (r) => [r.method, r.url.slice(BASE.length), await r.text()]),
    );
    expect(sent).toEqual([
      [
        'POST',
        '/v1/log-streams',
        JSON.stringify({ name: 'siem', destination, startAt: 'earliest' }),
      ],
      ['GET', '/v1/log-streams?limit=10', ''],
      ['GET', `/v1/log-streams/${id}`, ''],
      ['PATCH', `/v1/log-streams/${id}`, '{"status":"paused"}'],
      ['POST', `/v1/log-streams/${id}/replay`, '{"fromSeq":7}'],
      ['POST', `/v1/log-streams/${id}/test`, ''],
      ['POST', `/v1/log-streams/${id}/rotate-secret`, ''],
      ['GET', `/v1/log-streams/${id}/deliveries`, ''],
      ['DELETE', `/v1/log-streams/${id}`, ''],
    ]);
  });

  it('answers a download with the Response, unread', async () => {
    const { fetch, requests } = fakeFetch(
      () => new Response('id,event\n', { headers: { 'content-type': 'text/csv' } }),
    );
    const client = createSecadminClient({ baseUrl: BASE, fetch });
    const response = await client.exports.download('exp_1.csv', { token: 't' });
    expect(await response.text()).toBe('id,event\n');
    expect(requests[0]?.url).toBe(`${BASE}/downloads/exp_1.csv?token=t`);
  });

  it('sends the caller’s headers', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { status: 'ok' }));
    const client = createSecadminClient({ baseUrl: BASE, fetch });
    await client.system.getHealth({ headers: { 'X-Trace': 't1' } });
    expect(requests[0]?.headers.get('x-trace')).toBe('t1');
  });
});

describe('the openapi-fetch client underneath', () => {
  it('sends the API key as a bearer token', async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(200, { data: detail, meta: { requestId: 'r1' } }),
    );
    const client = createSecadminClient({ baseUrl: `${BASE}/`, apiKey: 'sk_test', fetch });
    const { data } = await client.GET('/v1/users/{id}', { params: { path: { id: user.id } } });
    expect(data?.data.email).toBe('ada@example.com');
    expect(requests[0]?.headers.get('authorization')).toBe('Bearer sk_test');
    expect(requests[0]?.url).toBe(`${BASE}/v1/users/${user.id}`);
  });

  it('sends array query parameters as comma-separated lists', async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(200, { data: [], pagination: { hasMore: false }, meta: { requestId: 'r' } }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    await client.GET('/v1/logs', { params: { query: { events: ['user.login', 'user.logout'] } } });
    const url = new URL(requests[0]?.url ?? '');
    expect(url.searchParams.get('events')).toBe('user.login,user.logout');
  });

  it('throws a typed error carrying code, message, details, requestId and status', async () => {
    const { fetch } = fakeFetch(() =>
      json(400, {
        error: {
          code: 'invalid_request',
          message: 'The request is invalid.',
          details: [{ field: 'body.email', message: 'must match format "email"' }],
        },
        meta: { requestId: 'req_42' },
      }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    const error = await client.users.create({ email: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecadminApiError);
    const apiError = error as SecadminApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('invalid_request');
    expect(apiError.message).toBe('The request is invalid.');
    expect(apiError.details).toEqual([
      { field: 'body.email', message: 'must match format "email"' },
    ]);
    expect(apiError.requestId).toBe('req_42');
  });

  it('still gives a usable error when the body is not an envelope', async () => {
    const { fetch } = fakeFetch(
      () =>
        new Response('<html>bad gateway</html>', {
          status: 502,
          headers: { 'x-request-id': 'gw' },
        }),
    );
    const client = createSecadminClient({ baseUrl: BASE, fetch });
    const error = (await client.system.getHealth().catch((e: unknown) => e)) as SecadminApiError;
    expect(error.status).toBe(502);
    expect(error.code).toBe('unknown');
    expect(error.requestId).toBe('gw');
  });

  it('sends no Authorization header without an API key', async () => {
    const { fetch, requests } = fakeFetch(() => json(200, { status: 'ok' }));
    const client = createSecadminClient({ baseUrl: BASE, fetch });
    await client.GET('/healthz');
    expect(requests[0]?.headers.has('authorization')).toBe(false);
  });
});

describe('paginate', () => {
  it('walks every page by following nextCursor, keeping the query', async () => {
    const pages: Record<string, unknown> = {
      '': {
        data: [
          { ...user, id: 'a' },
          { ...user, id: 'b' },
        ],
        pagination: { hasMore: true, nextCursor: 'c1' },
      },
      c1: {
        data: [
          { ...user, id: 'c' },
          { ...user, id: 'd' },
        ],
        pagination: { hasMore: true, nextCursor: 'c2' },
      },
      c2: { data: [{ ...user, id: 'e' }], pagination: { hasMore: false } },
    };
    const { fetch, requests } = fakeFetch((req) => {
      const cursor = new URL(req.url).searchParams.get('cursor') ?? '';
      return json(200, { ...(pages[cursor] as object), meta: { requestId: 'r' } });
    });
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    const ids: string[] = [];
    for await (const item of client.paginate('/v1/users', { limit: 2, role: 'admin' }))
      ids.push(item.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=2&role=admin',
      '?limit=2&role=admin&cursor=c1',
      '?limit=2&role=admin&cursor=c2',
    ]);
  });

  it('stops at the first error', async () => {
    const { fetch } = fakeFetch(() =>
      json(403, { error: { code: 'forbidden', message: 'no' }, meta: { requestId: 'r' } }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'k', fetch });
    const iterate = async () => {
      for await (const _ of client.paginate('/v1/policies')) {
        /* unreachable */
      }
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'forbidden', status: 403 });
  });

  it('stops when the signal aborts between pages', async () => {
    const { fetch, requests } = fakeFetch(() =>
      json(200, {
        data: [user],
        pagination: { hasMore: true, nextCursor: 'next' },
        meta: { requestId: 'r' },
      }),
    );
    const client = createSecadminClient({ baseUrl: BASE, fetch });
    const controller = new AbortController();
    const iterate = async () => {
      for await (const _ of client.paginate('/v1/users', {}, { signal: controller.signal }))
        controller.abort(new Error('enough'));
    };
    await expect(iterate()).rejects.toThrow('enough');
    expect(requests).toHaveLength(1);
  });
});
