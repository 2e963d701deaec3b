import { describe, expect, it } from 'vitest';
import { createSecadminClient } from '../src/index.js';

const BASE = 'http://secadmin.test';
const meta = { requestId: 'r' };

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function recording(answer: (req: Request) => Response | Promise<Response>) {
  const requests: Request[] = [];
  const fetch = async (req: Request) => {
    requests.push(req.clone());
    return answer(req);
  };
  return { fetch, requests };
}

const user = (id: string) => ({
  id,
  email: `${id}@example.com`,
  name: id,
  createdAt: '2026-11-25T21:00:00Z',
  roles: [],
});

describe('what a newcomer reaches for', () => {
  it('awaits a list for one page, and iterates the same call for every item of every page', async () => {
    const pages: Record<string, unknown> = {
      '': { data: [user('a'), user('b')], pagination: { hasMore: true, nextCursor: 'c1' } },
      c1: { data: [user('c')], pagination: { hasMore: false } },
    };
    const { fetch, requests } = recording((req) =>
      json(200, { ...(pages[new URL(req.url).searchParams.get('cursor') ?? ''] as object), meta }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch });
    const call = client.users.list({ limit: 2 });
    expect(requests).toHaveLength(0);
    const page = await call;
    expect(page.data.map((u) => u.id)).toEqual(['a', 'b']);
    expect(page.pagination.nextCursor).toBe('c1');
    const ids: string[] = [];
    for await (const u of client.users.list({ limit: 2 })) ids.push(u.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(requests.map((r) => new URL(r.url).search)).toEqual([
      '?limit=2',
      '?limit=2',
      '?limit=2&cursor=c1',
    ]);
  });

  it('names the batch simulation simulateBatch', async () => {
    const { fetch, requests } = recording(() => json(200, { data: { results: [] }, meta }));
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch });
    await client.policies.simulateBatch({
      checks: [{ principal: 'role:a', action: 'users:read', resource: 'users/1' }],
    });
    expect(new URL(requests[0]?.url ?? '').pathname).toBe('/v1/policies/simulate/batch');
    expect('simulatePolicyBatch' in client.policies).toBe(false);
  });

  it('remembers the ETag a get answered and sends it back as If-Match', async () => {
    const detail = {
      ...user('u'),
      emailVerified: false,
      metadata: {},
      updatedAt: '2026-11-25T21:00:00Z',
    };
    const { fetch, requests } = recording((req) =>
      json(200, { data: detail, meta }, req.method === 'GET' ? { ETag: '"v1"' } : {}),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch });
    const fetched = await client.users.get('u');
    expect(client.etagOf(fetched)).toBe('"v1"');
    await client.users.update('u', { name: 'Ada' }, { ifMatch: client.etagOf(fetched) as string });
    await client.users.delete('u', { ifMatch: '"v1"' });
    expect(requests[1]?.headers.get('if-match')).toBe('"v1"');
    expect(requests[2]?.headers.get('if-match')).toBe('"v1"');
    expect(requests[0]?.headers.has('if-match')).toBe(false);
  });

  it('refuses an ifMatch given as undefined rather than send the change unconditionally', async () => {
    const { fetch, requests } = recording(
      () => new Response(JSON.stringify({ data: [{ id: 'u' }], pagination: { hasMore: false } })),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch });
    const [listed] = (await client.users.list()).data;
    // A list item carries no ETag: etagOf answers undefined.
    const etag = client.etagOf(listed as object);
    expect(etag).toBeUndefined();
    await expect(
      client.users.update('u', { name: 'Ada' }, { ifMatch: etag as string }),
    ).rejects.toThrow(/ifMatch is undefined/);
    await expect(client.users.delete('u', { ifMatch: etag as string })).rejects.toThrow(
      /ifMatch is undefined/,
    );
    expect(requests).toHaveLength(1);
  });

  it('waits for an export and downloads it by its downloadUrl', async () => {
    let polls = 0;
    const downloadUrl = 'https://files.example.com/downloads/exp_1.csv?token=t0k';
    const { fetch, requests } = recording((req) => {
      const url = new URL(req.url);
      if (url.pathname === '/v1/logs/export/exp_1') {
        polls += 1;
        const status = polls < 3 ? 'processing' : 'completed';
        return json(200, {
          data: {
            exportId: 'exp_1',
            status,
            format: 'csv',
            createdAt: '2026-11-25T21:00:00.000Z',
            ...(status === 'completed' ? { downloadUrl } : {}),
          },
          meta,
        });
      }
      return new Response('id,timestamp\n', {
        status: 200,
        headers: { 'content-type': 'text/csv' },
      });
    });
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch });
    const done = await client.exports.wait('exp_1', { intervalMs: 1 });
    expect(done.status).toBe('completed');
    expect(polls).toBe(3);
    const file = await client.exports.download(done.downloadUrl as string);
    expect(await file.text()).toBe('id,timestamp\n');
    const last = new URL(requests.at(-1)?.url ?? '');
    expect(`${last.origin}${last.pathname}${last.search}`).toBe(
      `${BASE}/downloads/exp_1.csv?token=t0k`,
    );
  });

  it('rejects a failed export with its error, and a wait past its timeout', async () => {
    const failed = recording(() =>
      json(200, {
        data: {
          exportId: 'exp_2',
          status: 'failed',
          format: 'json',
          createdAt: '2026-11-25T21:00:00.000Z',
          error: 'disk full',
        },
        meta,
      }),
    );
    const client = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch: failed.fetch });
    await expect(client.exports.wait('exp_2')).rejects.toThrow('export exp_2 failed: disk full');
    const slow = recording(() =>
      json(200, {
        data: {
          exportId: 'exp_3',
          status: 'processing',
          format: 'json',
          createdAt: '2026-11-25T21:00:00.000Z',
        },
        meta,
      }),
    );
    const waiting = createSecadminClient({ baseUrl: BASE, apiKey: 'sk_k', fetch: slow.fetch });
    await expect(waiting.exports.wait('exp_3', { intervalMs: 5, timeoutMs: 1 })).rejects.toThrow(
      'still processing',
    );
  });

  it('refuses an apiKey that is present but undefined or empty, at once', () => {
    expect(() => createSecadminClient({ baseUrl: BASE, apiKey: undefined })).toThrow(
      /apiKey is empty/,
    );
    expect(() => createSecadminClient({ baseUrl: BASE, apiKey: '' })).toThrow(TypeError);
    expect(() => createSecadminClient({ baseUrl: BASE })).not.toThrow();
  });
});
