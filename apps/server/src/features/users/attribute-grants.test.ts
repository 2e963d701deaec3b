import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKey,
  createPolicy,
  createUser,
  failure,
  uniqueEmail,
} from '../../../test/helpers/fixtures.js';
import { raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * decisions §3: changing a `metadata` key that a stored policy reads (`principal.metadata.<key>`)
 * needs `users:grant` on `attributes/<key>`, as a role needs `users:grant` on `roles/<role>`.
 */
describe('attributes that decide access are grants', () => {
  let server: TestServer;
  let self: { id: string };
  let selfKey: string;

  const as = (secret: string) => server.clientWith(secret);
  const metadataOf = async (id: string) =>
    (await server.client.GET('/v1/users/{id}', { params: { path: { id } } })).data?.data.metadata;
  const mayCreatePolicies = async (id: string) =>
    (
      await server.client.POST('/v1/policies/simulate', {
        body: { principal: `user:${id}`, action: 'policies:create', resource: 'policies' },
      })
    ).data?.data.allowed;
  const patchSelf = (metadata: Record<string, unknown>, key = selfKey, id = self.id) =>
    raw(server, `/v1/users/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata }),
    });
  async function scim(
    method: string,
    path: string,
    body: unknown,
    key: string,
    // biome-ignore lint/suspicious/noExplicitAny: SCIM bodies are read as any JSON
  ): Promise<{ status: number; body: any }> {
    const res = await raw(server, `/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    server = await startTestServer();
    // The attack as it was done: a person who may update only themselves, and a policy that
    // gives everything to whoever is in department "x".
    self = await createUser(server.client);
    selfKey = (await createKey(server.client, `user:${self.id}`)).secret;
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['users:read', 'users:update'],
      resources: ['users/${self}'],
    });
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['*'],
      resources: ['*'],
      conditions: { attributes: { 'principal.metadata.department': { equals: 'x' } } },
    });
  });
  afterAll(() => server?.stop());

  it('refuses a person giving themselves the department a policy grants everything to', async () => {
    expect(await mayCreatePolicies(self.id)).toBe(false);
    const res = await patchSelf({ department: 'x' });
    expect(res.status).toBe(403);
    expect(
      ((await res.json()) as { error: { code: string; message: string } }).error,
    ).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('attributes/department'),
    });
    expect(await metadataOf(self.id)).toEqual({});
    expect(await mayCreatePolicies(self.id)).toBe(false);
    // Nor with another key in the same body, nor by changing, removing, or under the key.
    expect((await patchSelf({ desk: 4, department: 'x' })).status).toBe(403);
    expect(await metadataOf(self.id)).toEqual({});
    await server.client.PATCH('/v1/users/{id}', {
      params: { path: { id: self.id } },
      body: { metadata: { department: 'y' } },
    });
    expect((await patchSelf({ department: 'x' })).status).toBe(403);
    expect((await patchSelf({ department: null })).status).toBe(403);
    expect((await patchSelf({ department: { nested: 'x' } })).status).toBe(403);
    expect(await metadataOf(self.id)).toEqual({ department: 'y' });
    // Setting it to what it is changes nothing, and a key no policy reads stays free.
    expect((await patchSelf({ department: 'y' })).status).toBe(200);
    expect((await patchSelf({ desk: 4 })).status).toBe(200);
    expect(await metadataOf(self.id)).toEqual({ department: 'y', desk: 4 });
    expect(await mayCreatePolicies(self.id)).toBe(false);
  });

  it('refuses it on create too, and lets the grant of attributes/<key> through', async () => {
    const hr = await createUser(server.client);
    const hrKey = (await createKey(server.client, `user:${hr.id}`)).secret;
    await createPolicy(server.client, {
      principals: [`user:${hr.id}`],
      actions: ['users:create', 'users:update', 'users:read'],
      resources: ['users', 'users/*'],
    });
    const email = uniqueEmail('dept');
    const refused = await failure(
      as(hrKey).POST('/v1/users', { body: { email, metadata: { department: 'x', desk: 1 } } }),
    );
    expect(refused.status).toBe(403);
    const listed = await server.client.GET('/v1/users', { params: { query: { email } } });
    expect(listed.data?.data).toEqual([]);
    // An unread key is free on create.
    const free = await as(hrKey).POST('/v1/users', {
      body: { email: uniqueEmail('desk'), metadata: { desk: 1 } },
    });
    expect(free.response.status).toBe(201);

    await createPolicy(server.client, {
      principals: [`user:${hr.id}`],
      actions: ['users:grant'],
      resources: ['attributes/department'],
    });
    const created = await as(hrKey).POST('/v1/users', {
      body: { email, metadata: { department: 'x' } },
    });
    expect(created.response.status).toBe(201);
    const patched = await patchSelf({ department: 'x' }, hrKey);
    expect(patched.status).toBe(200);
    expect(await metadataOf(self.id)).toMatchObject({ department: 'x' });
    expect(await mayCreatePolicies(self.id)).toBe(true);
    // The root key needs no grant.
    const root = await patchSelf({ department: 'y' }, server.rootKey);
    expect(root.status).toBe(200);
    expect(await mayCreatePolicies(self.id)).toBe(false);
  });

  it('follows the stored policies at once: a key becomes a grant when a policy reads it, under it too', async () => {
    expect((await patchSelf({ clearance: { level: 1 } })).status).toBe(200);
    const policy = await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['logs:read'],
      resources: ['logs/*'],
      conditions: { attributes: { 'principal.metadata.clearance.level': { greaterThan: 3 } } },
    });
    const raised = await patchSelf({ clearance: { level: 5 } });
    expect(raised.status).toBe(403);
    expect(await metadataOf(self.id)).toMatchObject({ clearance: { level: 1 } });
    await server.client.DELETE('/v1/policies/{id}', { params: { path: { id: policy.id } } });
    expect((await patchSelf({ clearance: { level: 2 } })).status).toBe(200);
  });

  it('holds for SCIM: create, PATCH and PUT of a name part a policy reads', async () => {
    const provisioner = (await createKey(server.client, 'service:idp')).secret;
    await createPolicy(server.client, {
      principals: ['service:idp'],
      actions: ['users:create', 'users:update', 'users:read'],
      resources: ['users', 'users/*'],
    });
    const email = uniqueEmail('scim');
    const input = {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: email, type: 'work', primary: true }],
    };
    // Free while no policy reads the name parts SCIM keeps in metadata.scim.
    const created = await scim('POST', '/Users', input, provisioner);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['*'],
      resources: ['*'],
      conditions: { attributes: { 'principal.metadata.scim.givenName': { equals: 'Root' } } },
    });
    const other = uniqueEmail('scim');
    const refusedCreate = await scim(
      'POST',
      '/Users',
      { ...input, userName: other, emails: [{ value: other, type: 'work', primary: true }] },
      provisioner,
    );
    expect.soft(refusedCreate).toMatchObject({ status: 403, body: { status: '403' } });
    const patch = await scim(
      'PATCH',
      `/Users/${id}`,
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name.givenName', value: 'Root' }] },
      provisioner,
    );
    expect.soft(patch).toMatchObject({ status: 403, body: { status: '403' } });
    const put = await scim(
      'PUT',
      `/Users/${id}`,
      { ...input, name: { givenName: 'Root', familyName: 'Lovelace' } },
      provisioner,
    );
    expect.soft(put.status).toBe(403);
    expect(await metadataOf(id)).toEqual({ scim: { givenName: 'Ada', familyName: 'Lovelace' } });
    expect(await mayCreatePolicies(id)).toBe(false);
    // A PUT that leaves the name parts as they are needs no grant.
    expect(
      (await scim('PUT', `/Users/${id}`, { ...input, active: false }, provisioner)).status,
    ).toBe(200);

    await createPolicy(server.client, {
      principals: ['service:idp'],
      actions: ['users:grant'],
      resources: ['attributes/scim'],
    });
    const granted = await scim(
      'PATCH',
      `/Users/${id}`,
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'name.givenName', value: 'Grace' }] },
      provisioner,
    );
    expect(granted.status).toBe(200);
    expect(granted.body.name.givenName).toBe('Grace');
  });

  it('makes every key a grant while a policy reads principal.metadata whole', async () => {
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['logs:list'],
      resources: ['logs'],
      conditions: { attributes: { 'principal.metadata': { exists: true } } },
    });
    const res = await patchSelf({ desk: 9 });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'attributes/desk',
    );
    expect(await metadataOf(self.id)).toMatchObject({ desk: 4 });
  });
});

/**
 * decisions §3, §8, §17: a user's `email` (and `emailVerified`) that a stored policy reads as
 * `principal.email`, and its `externalId` (whom the IdP's sign-in maps a person to), are grants
 * of `fields/<field>`; a new email is not verified.
 */
describe('fields that decide access are grants', () => {
  let server: TestServer;
  let eve: { id: string; email: string };
  let eveKey: string;
  const ceo = uniqueEmail('ceo');

  async function scim(
    method: string,
    path: string,
    body: unknown,
    key: string,
    // biome-ignore lint/suspicious/noExplicitAny: SCIM bodies are read as any JSON
  ): Promise<{ status: number; body: any }> {
    const res = await raw(server, `/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  }
  const patchOps = (Operations: unknown[], key = eveKey) =>
    scim('PATCH', `/Users/${eve.id}`, { schemas: [PATCH], Operations }, key);
  const stored = async (id: string) =>
    (await server.client.GET('/v1/users/{id}', { params: { path: { id } } })).data?.data;
  const mayListUsers = async () =>
    (await raw(server, '/v1/users', { headers: { authorization: `Bearer ${eveKey}` } })).status;
  const as = (secret: string) => server.clientWith(secret);

  beforeAll(async () => {
    server = await startTestServer();
    eve = await createUser(server.client);
    eveKey = (await createKey(server.client, `user:${eve.id}`)).secret;
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['users:read', 'users:update'],
      resources: ['users/${self}'],
    });
  });
  afterAll(() => server?.stop());

  it('refuses a person giving themselves the email a policy grants users:list to, in every SCIM form', async () => {
    // Free while no policy reads principal.email; the new address is not verified.
    await server.db.query('UPDATE users SET email_verified = true WHERE id = $1', [eve.id]);
    const renamed = uniqueEmail('eve');
    const free = await patchOps([{ op: 'replace', path: 'userName', value: renamed }]);
    expect(free.status).toBe(200);
    expect(await stored(eve.id)).toMatchObject({ email: renamed, emailVerified: false });

    await createPolicy(server.client, {
      name: 'ceo-email',
      principals: ['user:${self}'],
      actions: ['users:list'],
      resources: ['users'],
      conditions: { attributes: { 'principal.email': { equals: ceo } } },
    });
    expect(await mayListUsers()).toBe(403);
    const emails = [{ value: ceo, type: 'work', primary: true }];
    const attempts = [
      patchOps([{ op: 'replace', path: 'userName', value: ceo }]),
      patchOps([{ op: 'replace', path: 'emails[type eq "work"].value', value: ceo }]),
      patchOps([{ op: 'replace', path: 'emails', value: emails }]),
      patchOps([{ op: 'replace', value: { userName: ceo } }]),
      scim('PUT', `/Users/${eve.id}`, { schemas: [USER], userName: ceo, emails }, eveKey),
    ];
    for (const attempt of attempts) {
      const res = await attempt;
      expect.soft(res.status).toBe(403);
      expect.soft(res.body.detail).toContain('fields/email');
    }
    expect(await stored(eve.id)).toMatchObject({ email: renamed });
    expect(await mayListUsers()).toBe(403);
    // Nor on create by a key that may create users.
    const hr = await createUser(server.client);
    const hrKey = (await createKey(server.client, `user:${hr.id}`)).secret;
    await createPolicy(server.client, {
      principals: [`user:${hr.id}`],
      actions: ['users:create'],
      resources: ['users'],
    });
    const created = await failure(as(hrKey).POST('/v1/users', { body: { email: ceo } }));
    expect(created.status).toBe(403);

    // With users:grant on fields/email it goes through, and the policy then grants.
    await createPolicy(server.client, {
      principals: [`user:${eve.id}`],
      actions: ['users:grant'],
      resources: ['fields/email'],
    });
    expect((await patchOps([{ op: 'replace', path: 'userName', value: ceo }])).status).toBe(200);
    expect(await mayListUsers()).toBe(200);
  });

  it('needs fields/emailVerified for an email change while a policy reads principal.emailVerified', async () => {
    const user = await createUser(server.client);
    const key = (await createKey(server.client, `user:${user.id}`)).secret;
    await server.db.query('UPDATE users SET email_verified = true WHERE id = $1', [user.id]);
    await createPolicy(server.client, {
      principals: ['user:${self}'],
      actions: ['logs:list'],
      resources: ['logs'],
      conditions: { attributes: { 'principal.emailVerified': { equals: false } } },
    });
    // The email itself is granted (a policy reads principal.email too): only emailVerified is not.
    await createPolicy(server.client, {
      principals: [`user:${user.id}`],
      actions: ['users:grant'],
      resources: ['fields/email'],
    });
    const res = await scim(
      'PATCH',
      `/Users/${user.id}`,
      { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: uniqueEmail() }] },
      key,
    );
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('fields/emailVerified');
    expect(await stored(user.id)).toMatchObject({ email: user.email, emailVerified: true });
  });

  it('refuses a person setting their own externalId (the IdP sign-in maps by it), SCIM and /v1', async () => {
    const email = (await stored(eve.id))?.email;
    const attempts = [
      patchOps([{ op: 'replace', path: 'externalId', value: 'idp-sub-of-ceo' }]),
      patchOps([{ op: 'add', value: { externalId: 'idp-sub-of-ceo' } }]),
      scim(
        'PUT',
        `/Users/${eve.id}`,
        { schemas: [USER], userName: email, externalId: 'idp-sub-of-ceo' },
        eveKey,
      ),
    ];
    for (const attempt of attempts) {
      const res = await attempt;
      expect.soft(res.status).toBe(403);
      expect.soft(res.body.detail).toContain('fields/externalId');
    }
    const v1 = await failure(
      as(eveKey).PATCH('/v1/users/{id}', {
        params: { path: { id: eve.id } },
        body: { externalId: 'idp-sub-of-ceo' },
      }),
    );
    expect(v1.status).toBe(403);
    expect((await stored(eve.id))?.externalId).toBeUndefined();
    await createPolicy(server.client, {
      principals: [`user:${eve.id}`],
      actions: ['users:grant'],
      resources: ['fields/externalId'],
    });
    const granted = await as(eveKey).PATCH('/v1/users/{id}', {
      params: { path: { id: eve.id } },
      body: { externalId: 'eve-sub' },
    });
    expect(granted.response.status).toBe(200);
  });
});
