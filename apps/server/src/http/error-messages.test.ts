import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  json,
  postText,
  raw,
  startTestServer,
  type TestServer,
} from '../../test/helpers/server.js';

/** Errors say what to send, in words, and never show the machinery (a pattern, a parser's text). */
describe('error messages a newcomer reads', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const detailsOf = async (res: Response) =>
    ((await json(res)).error.details ?? []) as { field: string; message: string }[];

  it('states a pattern in words: an email, an instant, a principal', async () => {
    const user = await postText(server, '/v1/users', JSON.stringify({ email: 'not-an-email' }));
    expect(user.status).toBe(400);
    expect(await detailsOf(user)).toContainEqual({
      field: 'body.email',
      message: expect.stringContaining('must be an email address like'),
    });
    const key = await postText(
      server,
      '/v1/api-keys',
      JSON.stringify({ name: 'k', principal: 'robot', expiresAt: 'next tuesday' }),
    );
    expect(key.status).toBe(400);
    const details = await detailsOf(key);
    expect(details).toContainEqual({
      field: 'body.expiresAt',
      message: expect.stringContaining('ISO 8601'),
    });
    expect(details).toContainEqual({
      field: 'body.principal',
      message: expect.stringContaining('`user:`, `role:` or `service:`'),
    });
    for (const { message } of details) expect(message).not.toMatch(/must match pattern|\^/);
  });

  it('answers a known path with another method 405 and the methods it serves in Allow', async () => {
    const res = await raw(server, '/v1/users', {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await json(res)).error.code).toBe('method_not_allowed');
    const unknown = await raw(server, '/v1/nothing-here', {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(unknown.status).toBe(404);
    const withoutKey = await raw(server, '/v1/users', { method: 'PUT' });
    expect(withoutKey.status).toBe(401);
  });

  it('serves HEAD wherever GET is served, without a body', async () => {
    const res = await raw(server, '/v1/users', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.text()).toBe('');
    expect((await raw(server, '/healthz', { method: 'HEAD' })).status).toBe(200);
    const docs = await raw(server, '/docs', { method: 'HEAD' });
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('names the missing Bearer scheme, not an invalid key', async () => {
    const res = await raw(server, '/v1/users', { headers: { authorization: server.rootKey } });
    expect(res.status).toBe(401);
    const { error } = await json(res);
    expect(error.message).toContain('Bearer');
    expect(error.message).not.toContain(server.rootKey);
  });

  it('states the operation limit in a 413', async () => {
    const big = JSON.stringify({ email: 'a@example.com', name: 'x'.repeat(1_100_000) });
    const res = await postText(server, '/v1/users', big);
    expect(res.status).toBe(413);
    expect((await json(res)).error.message).toContain('at most 1 MiB (1048576 bytes)');
  });

  it('says where malformed JSON breaks, small or large, and never quotes the body', async () => {
    const small = await postText(server, '/v1/users', '{\n  "email": "a@example.com",\n}');
    expect(small.status).toBe(400);
    const smallError = (await json(small)).error;
    expect(smallError.message).toContain('line 3, column 1');
    expect(smallError.message).not.toContain('a@example.com');
    const secret = 'hunter2-secret';
    const token = await postText(server, '/v1/users', `{"password": "${secret}", "email": tru }`);
    const tokenError = (await json(token)).error;
    expect(tokenError.message).toMatch(/line 1, column \d+/);
    expect(JSON.stringify(tokenError)).not.toContain(secret);
    const large = `{"entries": [${'{"event":"a.b","actor":{"type":"x"},"result":"success"},'.repeat(6000)}]}`;
    const res = await postText(server, '/v1/logs', large);
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/line 1, column \d+/);
    const cut = await postText(server, '/v1/users', '{"email": "a@example.com"');
    expect((await json(cut)).error.message).toContain('column 26');
  });
});
