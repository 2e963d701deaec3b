import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createPolicy, uniqueEmail } from '../../../test/helpers/fixtures.js';
import { raw, startTestServer, type TestServer } from '../../../test/helpers/server.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
let counter = 0;

describe('SCIM 2.0', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ validateResponses: true });
  });
  afterAll(() => server?.stop());

  async function scim(
    method: string,
    path: string,
    body?: unknown,
    key = server.rootKey,
    // biome-ignore lint/suspicious/noExplicitAny: SCIM bodies are read as any JSON
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await raw(server, `/scim/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status !== 204)
      expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }
  const patch = (Operations: unknown[]) => ({ schemas: [PATCH], Operations });
  const q = (filter: string) => `?filter=${encodeURIComponent(filter)}`;
  // biome-ignore lint/suspicious/noExplicitAny: a SCIM body
  const newUser = (extra: Record<string, unknown> = {}): Record<string, any> => {
    const email = uniqueEmail('scim');
    return {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Ada', familyName: `Lovelace${counter++}` },
      emails: [{ primary: true, value: email, type: 'work' }],
      active: true,
      ...extra,
    };
  };
  const entries = async (event: string, targetId: string) => {
    const { data } = await server.client.GET('/v1/logs', {
      params: { query: { events: [event], limit: 100 } },
    });
    const listed = (data?.data ?? []).filter((e) => e.target?.id === targetId);
    return Promise.all(
      listed.map(
        async (e) =>
          (await server.client.GET('/v1/logs/{id}', { params: { path: { id: e.id } } })).data?.data,
      ),
    );
  };

  // The "Required Test" steps of Okta's SCIM 2.0 spec test (its Runscope suite), request by
  // request, with the suite's own shape of user (a random runscope…@atko.com).
  it("passes the Required Tests of Okta's SCIM 2.0 spec test, step by step", async () => {
    const random = `runscope${Date.now()}${counter++}`;
    const userName = `${random}@atko.com`;
    const oktaUser = {
      schemas: [USER],
      userName,
      name: { givenName: random, familyName: 'Ruth' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: `${random} Ruth`,
      active: true,
    };
    // Seed one user so that the first steps have one to find, as a tenant would.
    expect((await scim('POST', '/Users', newUser())).status).toBe(201);
    // Test Users endpoint
    const listed = await scim('GET', '/Users?count=1&startIndex=1');
    expect(listed.status).toBe(200);
    expect(listed.body.schemas).toContain('urn:ietf:params:scim:api:messages:2.0:ListResponse');
    expect(typeof listed.body.totalResults).toBe('number');
    expect(listed.body.itemsPerPage).toBe(1);
    expect(listed.body.startIndex).toBe(1);
    expect(listed.body.Resources).toHaveLength(1);
    const first = listed.body.Resources[0];
    expect(first.id).toEqual(expect.any(String));
    expect(first.userName).toEqual(expect.any(String));
    // Get Users/{{id}}
    const got = await scim('GET', `/Users/${first.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: first.id, userName: first.userName });
    // Test invalid User by username
    const invalid = await scim('GET', `/Users${q(`userName eq "${random}-invalid@atko.com"`)}`);
    expect(invalid.status).toBe(200);
    expect(invalid.body.totalResults).toBe(0);
    // Make sure random user doesn't exist
    const missing = await scim('GET', `/Users/010101010101010101${counter++}`);
    expect(missing.status).toBe(404);
    expect(missing.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    // Test Create Okta user with realistic values
    const created = await scim('POST', '/Users', oktaUser);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      active: true,
      userName,
      name: { givenName: random, familyName: 'Ruth' },
    });
    expect(created.body.id).toEqual(expect.any(String));
    // Verify that user was created
    const verified = await scim('GET', `/Users/${created.body.id}`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      userName,
      name: { givenName: random, familyName: 'Ruth' },
      emails: [{ value: userName, primary: true, type: 'work' }],
    });
    // Expect failure when recreating user with same values
    const again = await scim('POST', '/Users', oktaUser);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    // Username Case Sensitivity Check
    const upper = await scim('GET', `/Users${q(`userName eq "${userName.toUpperCase()}"`)}`);
    expect(upper.status).toBe(200);
    expect(upper.body.Resources.map((u: { id: string }) => u.id)).toEqual([created.body.id]);
  });

  it("follows Okta's SCIM 2.0 test: create, find, get, replace, deactivate, reactivate, and a retried create is 409", async () => {
    const input = newUser({ externalId: `okta-${counter++}`, password: 'correct-horse-battery' });
    const created = await scim('POST', '/Users', input);
    expect(created.status).toBe(201);
    const user = created.body;
    expect(user).toMatchObject({
      schemas: [USER],
      userName: input.userName,
      displayName: `Ada ${input.name.familyName}`,
      name: { givenName: 'Ada', familyName: input.name.familyName },
      emails: [{ value: input.userName, type: 'work', primary: true }],
      active: true,
      groups: [],
      meta: { resourceType: 'User', location: expect.stringMatching(/\/scim\/v2\/Users\/user_/) },
    });
    expect(user).not.toHaveProperty('password');
    expect(created.headers.get('etag')).toBe(user.meta.version);
    const v1 = await server.client.GET('/v1/users/{id}', { params: { path: { id: user.id } } });
    expect(v1.response.headers.get('etag')).toBe(user.meta.version);

    // Okta looks the user up by userName (any case) before creating it.
    const found = await scim(
      'GET',
      `/Users${q(`userName eq "${input.userName.toUpperCase()}"`)}&startIndex=1&count=100`,
    );
    expect(found.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(found.body.Resources[0].id).toBe(user.id);
    const unknownId = await scim('GET', '/Users/010101001010101');
    expect(unknownId).toMatchObject({ status: 404, body: { status: '404' } });
    for (const wrong of [
      { ...input, userName: 42 },
      { ...input, active: 'true' },
      { ...input, userName: 'not an email' },
    ]) {
      const refused = await scim('POST', '/Users', wrong);
      expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    }
    const none = await scim('GET', `/Users${q('userName eq "nobody-here@example.com"')}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });

    // A retried create never makes a second user.
    const retried = await scim('POST', '/Users', input);
    expect(retried.status).toBe(409);
    expect(retried.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
    });
    // With an Idempotency-Key too, the retry is 409, not a replayed 201.
    const keyedInput = newUser();
    for (const expected of [201, 409]) {
      const keyed = await raw(server, '/scim/v2/Users', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.rootKey}`,
          'content-type': 'application/scim+json',
          'idempotency-key': `okta-retry-${keyedInput.userName}`,
        },
        body: JSON.stringify(keyedInput),
      });
      expect(keyed.status).toBe(expected);
    }
    const { data: same } = await server.client.GET('/v1/users', {
      params: { query: { email: input.userName } },
    });
    expect(same?.data).toHaveLength(1);

    const replaced: Record<string, unknown> = {
      ...input,
      name: { givenName: 'Augusta', familyName: 'King' },
    };
    delete replaced.password;
    const put = await scim('PUT', `/Users/${user.id}`, replaced);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'Augusta King', name: { givenName: 'Augusta' } });
    expect(put.body.meta.version).not.toBe(user.meta.version);

    // Deactivation takes effect at once: decisions are denied and the user's key answers 401.
    const key = await createKey(server.client, `user:${user.id}`);
    await createPolicy(server.client, {
      principals: [`user:${user.id}`],
      actions: ['users:read'],
      resources: ['*'],
    });
    const own = server.clientWith(key.secret);
    expect(
      (await own.GET('/v1/users/{id}', { params: { path: { id: user.id } } })).response.status,
    ).toBe(200);
    const off = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'replace', value: { active: false } }]),
    );
    expect(off.body.active).toBe(false);
    const denied = await raw(server, `/v1/users/${user.id}`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(denied.status).toBe(401);
    const sim = await server.client.POST('/v1/policies/simulate', {
      body: { principal: `user:${user.id}`, action: 'users:read', resource: `users/${user.id}` },
    });
    expect(sim.data?.data).toMatchObject({ allowed: false, principalInactive: true });
    const on = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'replace', path: 'active', value: true }]),
    );
    expect(on.body.active).toBe(true);
    expect(
      (await own.GET('/v1/users/{id}', { params: { path: { id: user.id } } })).response.status,
    ).toBe(200);

    const updates = await entries('user.updated', user.id);
    expect(updates.length).toBe(3);
    for (const entry of updates) expect(entry?.metadata).toMatchObject({ via: 'scim' });
    const [createdEntry] = await entries('user.created', user.id);
    expect(createdEntry?.metadata).toMatchObject({ via: 'scim' });

    const deleted = await scim('DELETE', `/Users/${user.id}`);
    expect(deleted.status).toBe(204);
    const gone = await scim('GET', `/Users/${user.id}`);
    expect(gone).toMatchObject({ status: 404, body: { status: '404' } });
    const [deletedEntry] = await entries('user.deleted', user.id);
    expect(deletedEntry?.metadata).toMatchObject({
      via: 'scim',
      redactedEntries: expect.any(Number),
    });
  });

  it('follows an Entra ID sequence: externalId lookup, "False" strings, group members by value filter, excludedAttributes', async () => {
    const externalId = `entra-${Date.now()}-${counter++}`;
    const user = (await scim('POST', '/Users', newUser({ externalId }))).body;
    const byExternal = await scim('GET', `/Users${q(`externalId eq "${externalId}"`)}`);
    expect(byExternal.body.Resources.map((r: { id: string }) => r.id)).toEqual([user.id]);
    // Entra before its 2023 fix sends booleans as strings: taken for active, and only there.
    const off = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'Replace', path: 'active', value: 'False' }]),
    );
    expect(off.body.active).toBe(false);
    const on = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'Replace', value: { active: 'True' } }]),
    );
    expect(on.body.active).toBe(true);
    const junk = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'replace', path: 'active', value: 'maybe' }]),
    );
    expect(junk).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });

    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: `Entra Admins ${counter++}`,
      members: [],
    });
    expect(group.status).toBe(201);
    expect(group.body.id).toMatch(/^entra-admins-\d+$/);
    const clash = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: group.body.displayName,
    });
    expect(clash.body.id).toBe(`${group.body.id}-2`);
    const gid = group.body.id;
    const added = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'Add', path: 'members', value: [{ value: user.id }] }]),
    );
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value)).toEqual([user.id]);
    expect((await scim('GET', `/Users/${user.id}`)).body.groups).toEqual([
      expect.objectContaining({ value: gid, display: group.body.displayName }),
    ]);
    const byMember = await scim(
      'GET',
      `/Groups${q(`members.value eq "${user.id}"`)}&excludedAttributes=members`,
    );
    expect(byMember.body.Resources).toEqual([
      expect.not.objectContaining({ members: expect.anything() }),
    ]);
    expect(byMember.body.Resources[0].id).toBe(gid);
    const byName = await scim(
      'GET',
      `/Groups${q(`displayName eq "${group.body.displayName}"`)}&excludedAttributes=members`,
    );
    expect(byName.body.Resources.map((r: { id: string }) => r.id)).toEqual([gid, `${gid}-2`]);
    const removed = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'Remove', path: `members[value eq "${user.id}"]` }]),
    );
    expect(removed.body.members ?? []).toEqual([]);
    const again = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'add', path: 'members', value: [{ value: user.id }] }]),
    );
    expect(again.body.members).toHaveLength(1);
    // Entra's other removal: a value list.
    const listRemoval = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'Remove', path: 'members', value: [{ value: user.id }] }]),
    );
    expect(listRemoval.body.members ?? []).toEqual([]);
    const renamed = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'Replace', path: 'displayName', value: 'Entra Admins EU' }]),
    );
    expect(renamed.body.displayName).toBe('Entra Admins EU');
    const grants = await entries('user.updated', user.id);
    expect(grants.length).toBeGreaterThanOrEqual(4);
    const [roleUpdated] = await entries('role.updated', gid);
    expect(roleUpdated?.metadata).toMatchObject({ via: 'scim' });

    const unknown = await scim(
      'PATCH',
      `/Groups/${gid}`,
      patch([{ op: 'add', path: 'members', value: [{ value: user.id }, { value: 'user_nope' }] }]),
    );
    expect(unknown).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await scim('GET', `/Groups/${gid}`)).body.members ?? []).toEqual([]);

    expect((await scim('DELETE', `/Groups/${gid}`)).status).toBe(204);
    expect((await scim('GET', `/Groups/${gid}`)).status).toBe(404);
  });

  it("applies the interoperability profile's PATCH forms and filters", async () => {
    const user = (await scim('POST', '/Users', newUser({ externalId: `p-${counter++}` }))).body;
    const newEmail = uniqueEmail('moved');
    const moved = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([
        { op: 'replace', path: 'emails[type eq "work"].value', value: newEmail },
        { op: 'replace', path: 'name.givenName', value: 'Grace' },
        { op: 'remove', path: 'externalId' },
      ]),
    );
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      userName: newEmail,
      name: { givenName: 'Grace' },
      displayName: `Grace ${user.name.familyName}`,
    });
    expect(moved.body).not.toHaveProperty('externalId');
    // `not` of a comparison with an absent attribute holds (SQL's NULL must not leak through).
    const absent = await scim(
      'GET',
      `/Users${q(`not (externalId eq "zzz") and id eq "${user.id}"`)}`,
    );
    expect(absent.body.totalResults).toBe(1);
    const named = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([
        { op: 'add', value: { displayName: 'Grace Hopper', externalId: `again-${counter++}` } },
      ]),
    );
    expect(named.body).toMatchObject({
      displayName: 'Grace Hopper',
      externalId: expect.stringMatching(/^again-/),
    });
    const readOnly = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'add', path: 'groups', value: [{ value: 'admins' }] }]),
    );
    expect(readOnly).toMatchObject({ status: 400, body: { scimType: 'mutability' } });
    const noTarget = await scim('PATCH', `/Users/${user.id}`, patch([{ op: 'remove' }]));
    expect(noTarget).toMatchObject({ status: 400 });
    const proto = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'add', path: '__proto__.polluted', value: 'x' }]),
    );
    expect(proto).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const domain = newEmail.split('@')[0] as string;
    for (const [filter, hit] of [
      [`userName sw "${domain}"`, true],
      [`emails[type eq "work"].value eq "${newEmail}"`, true],
      [`emails.value co "${domain.slice(3)}"`, true],
      [`userName ew "@example.com" and displayName eq "grace hopper"`, true],
      [`(userName eq "${newEmail}" or userName eq "x@example.com") and active eq true`, true],
      [`userName eq "${newEmail}" and not (active eq false)`, true],
      [`externalId pr and userName eq "${newEmail}"`, true],
      [`meta.lastModified gt "2000-01-01T00:00:00Z" and id eq "${user.id}"`, true],
      [`userName eq "${newEmail}" and active ne true`, false],
      [`userName eq "${newEmail}\\" OR 1=1 --"`, false],
    ] as const) {
      const res = await scim('GET', `/Users${q(filter)}`);
      expect(res.status, filter).toBe(200);
      expect(
        res.body.Resources.some((r: { id: string }) => r.id === user.id),
        filter,
      ).toBe(hit);
    }
    const projected = await scim('GET', `/Users/${user.id}?attributes=userName,name.givenName`);
    expect(Object.keys(projected.body).sort()).toEqual(['id', 'name', 'schemas', 'userName']);
    expect(projected.body.name).toEqual({ givenName: 'Grace' });
  });

  it('refuses bad filters with invalidFilter, caps count, and answers the discovery endpoints', async () => {
    for (const filter of [
      'nickName eq "x"',
      'userName eq "a" or 1 eq 1',
      "userName eq x'; DROP TABLE users; --",
      'userName eq',
      'active eq "yes"',
      'meta.lastModified gt "yesterday"',
      `${'('.repeat(50)}userName eq "a"${')'.repeat(50)}`,
      `${'not ('.repeat(9)}userName eq "a"${')'.repeat(9)}`,
      Array.from({ length: 40 }, (_, i) => `id eq "u${i}"`).join(' or '),
      `userName eq "${'x'.repeat(1000)}"`,
    ]) {
      const res = await scim('GET', `/Users${q(filter)}`);
      expect(res.status, filter).toBe(400);
      expect(res.body, filter).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    }
    for (let i = 0; i < 3; i++) await scim('POST', '/Users', newUser());
    const capped = await scim('GET', '/Users?count=100000&startIndex=-5');
    expect(capped.status).toBe(200);
    expect(capped.body.startIndex).toBe(1);
    expect(capped.body.itemsPerPage).toBeLessThanOrEqual(200);
    expect(capped.body.Resources.length).toBe(Math.min(200, capped.body.totalResults));
    const countOnly = await scim('GET', '/Users?count=0');
    expect(countOnly.body).toMatchObject({ itemsPerPage: 0, Resources: [] });
    expect(countOnly.body.totalResults).toBeGreaterThanOrEqual(3);
    const second = await scim('GET', '/Users?startIndex=2&count=1');
    expect(second.body.Resources[0].id).toBe(capped.body.Resources[1].id);

    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      etag: { supported: true },
    });
    expect(
      (await scim('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id),
    ).toEqual(['User', 'Group']);
    expect((await scim('GET', '/Schemas')).body.Resources.map((r: { id: string }) => r.id)).toEqual(
      [USER, GROUP],
    );
    const anonymous = await raw(server, '/scim/v2/Users');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '401',
    });
    const plain = await raw(server, '/scim/v2/Users', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(newUser()),
    });
    expect(plain.status).toBe(201);
  });

  it('lets a key with users:update but not users:grant add nobody to a group, itself included', async () => {
    const admins = (
      await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Admins ${counter++}` })
    ).body;
    const me = (await scim('POST', '/Users', newUser())).body;
    await createPolicy(server.client, {
      principals: [`user:${me.id}`],
      actions: ['users:update', 'users:read', 'roles:read', 'roles:update'],
      resources: ['*'],
    });
    const key = (await createKey(server.client, `user:${me.id}`)).secret;
    const self = await scim(
      'PATCH',
      `/Groups/${admins.id}`,
      patch([{ op: 'add', path: 'members', value: [{ value: me.id }] }]),
      key,
    );
    expect(self).toMatchObject({ status: 403, body: { status: '403' } });
    const viaPut = await scim(
      'PUT',
      `/Groups/${admins.id}`,
      { schemas: [GROUP], displayName: admins.displayName, members: [{ value: me.id }] },
      key,
    );
    expect(viaPut.status).toBe(403);
    const viaUser = await scim(
      'PATCH',
      `/Users/${me.id}`,
      patch([{ op: 'add', path: 'groups', value: [{ value: admins.id }] }]),
      key,
    );
    expect(viaUser.status).toBe(400);
    const { data } = await server.client.GET('/v1/users/{id}', { params: { path: { id: me.id } } });
    expect(data?.data.roles).toEqual([]);
    // A key with no right on a group learns nothing of it through PUT or PATCH.
    const nobody = (await createKey(server.client, `service:nobody-${counter++}`)).secret;
    for (const id of [admins.id, 'no-such-group']) {
      const probe = await scim(
        'PATCH',
        `/Groups/${id}`,
        patch([{ op: 'add', path: 'members', value: [] }]),
        nobody,
      );
      expect(probe.status).toBe(403);
    }
    // Renaming needs roles:update only, which it has.
    const rename = await scim(
      'PATCH',
      `/Groups/${admins.id}`,
      patch([{ op: 'replace', path: 'displayName', value: 'Renamed' }]),
      key,
    );
    expect(rename.status).toBe(200);
  });
  it('refuses what it cannot store: invalidPath outside the schema, mutability for read-only, nothing changed', async () => {
    const admins = (
      await scim('POST', '/Groups', { schemas: [GROUP], displayName: `Admins ${counter++}` })
    ).body;
    const input = newUser();
    const user = (await scim('POST', '/Users', input)).body;
    const unchanged = async () => {
      const now = (await scim('GET', `/Users/${user.id}`)).body;
      expect(now.meta.version).toBe(user.meta.version);
      expect(now.groups).toEqual([]);
      const { data } = await server.client.GET('/v1/users/{id}', {
        params: { path: { id: user.id } },
      });
      expect(data?.data.roles).toEqual([]);
    };
    const refusals: [string, string, unknown, string][] = [
      [
        'PATCH',
        'roles',
        patch([{ op: 'add', path: 'roles', value: [{ value: admins.id }] }]),
        'mutability',
      ],
      ['PATCH', 'id', patch([{ op: 'replace', path: 'id', value: 'user_other' }]), 'mutability'],
      [
        'PATCH',
        'noSuchAttribute',
        patch([{ op: 'replace', path: 'noSuchAttribute', value: 'x' }]),
        'invalidPath',
      ],
      [
        'PATCH',
        'name.middleName',
        patch([{ op: 'add', path: 'name.middleName', value: 'Q' }]),
        'invalidPath',
      ],
      [
        'PATCH',
        'an extension attribute',
        patch([
          {
            op: 'add',
            path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
            value: 'x',
          },
        ]),
        'invalidPath',
      ],
      [
        'PATCH',
        'an unknown key without a path',
        patch([{ op: 'replace', value: { displayName: 'New', nickName: 'n' } }]),
        'invalidPath',
      ],
      [
        'PUT',
        'groups',
        { ...input, displayName: 'New', groups: [{ value: admins.id }] },
        'mutability',
      ],
      [
        'PUT',
        'roles',
        { ...input, displayName: 'New', roles: [{ value: admins.id }] },
        'mutability',
      ],
      [
        'PUT',
        'another id',
        { ...input, displayName: 'New', id: 'user_someone_else' },
        'mutability',
      ],
      [
        'PUT',
        'an unknown attribute',
        { ...input, displayName: 'New', nickName: 'n' },
        'invalidPath',
      ],
      [
        'PUT',
        'an unknown sub-attribute',
        { ...input, name: { ...input.name, middleName: 'Q' } },
        'invalidPath',
      ],
      [
        'PUT',
        'an extension',
        {
          ...input,
          displayName: 'New',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'x' },
        },
        'invalidPath',
      ],
    ];
    for (const [method, what, body, scimType] of refusals) {
      const res = await scim(method, `/Users/${user.id}`, body);
      expect.soft(res, `${method} ${what}`).toMatchObject({
        status: 400,
        body: { status: '400', scimType },
      });
    }
    await unchanged();
    const other = newUser();
    const created = await scim('POST', '/Users', { ...other, title: 'CTO' });
    expect(created).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    const none = await scim('GET', `/Users${q(`userName eq "${other.userName}"`)}`);
    expect(none.body.totalResults).toBe(0);
    const groupPut = await scim('PUT', `/Groups/${admins.id}`, {
      schemas: [GROUP],
      displayName: 'Renamed',
      owner: 'x',
    });
    expect(groupPut).toMatchObject({ status: 400, body: { scimType: 'invalidPath' } });
    const groupPatch = await scim(
      'PATCH',
      `/Groups/${admins.id}`,
      patch([{ op: 'replace', path: 'meta.version', value: 'W/"1"' }]),
    );
    expect(groupPatch).toMatchObject({ status: 400, body: { scimType: 'mutability' } });
    expect((await scim('GET', `/Groups/${admins.id}`)).body.displayName).toBe(admins.displayName);

    // What a client read and sends back is an echo, not a change: its own id, meta, groups.
    const echoed = await scim('PUT', `/Users/${user.id}`, {
      ...user,
      displayName: 'Echoed',
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.displayName).toBe('Echoed');
  });

  it('lists only the Groups a key may roles:read, with members only for a key that may users:list', async () => {
    const member = (await scim('POST', '/Users', newUser())).body;
    const [shown, hidden] = await Promise.all(
      ['Shown', 'Hidden'].map(
        async (name) =>
          (
            await scim('POST', '/Groups', {
              schemas: [GROUP],
              displayName: `${name} ${counter++}`,
              members: [{ value: member.id }],
            })
          ).body,
      ),
    );
    const principal = `service:group-reader-${counter++}`;
    const key = (await createKey(server.client, principal)).secret;
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['roles:list'],
      resources: ['roles'],
    });
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['roles:read'],
      resources: [`roles/${shown.id}`],
    });
    const listed = await scim('GET', '/Groups', undefined, key);
    expect(listed.status).toBe(200);
    expect.soft(listed.body.Resources.map((g: { id: string }) => g.id)).toEqual([shown.id]);
    expect.soft(listed.body.totalResults).toBe(1);
    for (const group of listed.body.Resources) expect.soft(group).not.toHaveProperty('members');
    // Who is in a group is not this key's to know, not even as a count.
    for (const filter of [
      `members.value eq "${member.id}"`,
      `members[value eq "${member.id}"]`,
      `displayName eq "${shown.displayName}" and members[value eq "${member.id}"]`,
    ]) {
      const byMember = await scim('GET', `/Groups${q(filter)}&count=0`, undefined, key);
      expect.soft(byMember, filter).toMatchObject({
        status: 403,
        body: { status: '403', detail: expect.stringContaining('users:list') },
      });
      expect.soft(byMember.body, filter).not.toHaveProperty('totalResults');
    }
    const byName = await scim(
      'GET',
      `/Groups${q(`displayName eq "${hidden.displayName}"`)}`,
      undefined,
      key,
    );
    expect(byName.body.totalResults).toBe(0);
    const one = await scim('GET', `/Groups/${shown.id}`, undefined, key);
    expect(one.status).toBe(200);
    expect.soft(one.body).not.toHaveProperty('members');

    await createPolicy(server.client, {
      principals: [principal],
      actions: ['users:list'],
      resources: ['users'],
    });
    const withMembers = await scim('GET', '/Groups', undefined, key);
    expect(withMembers.body.Resources).toEqual([
      expect.objectContaining({
        id: shown.id,
        members: [expect.objectContaining({ value: member.id })],
      }),
    ]);
    expect((await scim('GET', `/Groups/${shown.id}`, undefined, key)).body.members).toHaveLength(1);
    const byMember = await scim(
      'GET',
      `/Groups${q(`members.value eq "${member.id}"`)}`,
      undefined,
      key,
    );
    expect(byMember.body.Resources.map((g: { id: string }) => g.id)).toEqual([shown.id]);
  });
  it("shows a User's groups only as far as the key may roles:read them", async () => {
    const member = (await scim('POST', '/Users', newUser())).body;
    const [shown, hidden] = await Promise.all(
      ['Visible', 'Secret'].map(
        async (name) =>
          (
            await scim('POST', '/Groups', {
              schemas: [GROUP],
              displayName: `${name} ${counter++}`,
              members: [{ value: member.id }],
            })
          ).body,
      ),
    );
    const principal = `service:user-reader-${counter++}`;
    const key = (await createKey(server.client, principal)).secret;
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['users:read', 'users:list'],
      resources: ['users', `users/${member.id}`],
    });
    await createPolicy(server.client, {
      principals: [principal],
      actions: ['roles:read'],
      resources: [`roles/${shown.id}`],
    });
    const groups = (r: { groups?: { value: string; display: string }[] }) => r.groups ?? [];
    const one = await scim('GET', `/Users/${member.id}`, undefined, key);
    expect(one.status).toBe(200);
    expect(groups(one.body)).toEqual([
      expect.objectContaining({ value: shown.id, display: shown.displayName }),
    ]);
    const listed = await scim('GET', `/Users${q(`id eq "${member.id}"`)}`, undefined, key);
    expect(groups(listed.body.Resources[0])).toEqual([
      expect.objectContaining({ value: shown.id }),
    ]);
    expect(JSON.stringify([one.body, listed.body])).not.toContain(hidden.displayName);
    // The root key sees both.
    const all = await scim('GET', `/Users/${member.id}`);
    expect(groups(all.body).map((g) => g.value)).toEqual([shown.id, hidden.id].sort());
  });
  it('refuses what a User PATCH or PUT would drop or corrupt: wrong types, no target, a second email', async () => {
    const input = newUser({ displayName: 'Ada L' });
    const user = (await scim('POST', '/Users', input)).body;
    const stored = async () =>
      (await server.client.GET('/v1/users/{id}', { params: { path: { id: user.id } } })).data?.data;
    const other = uniqueEmail('second');
    for (const [body, scimType, method] of [
      [patch([{ op: 'replace', path: 'name.givenName', value: { x: 1 } }]), 'invalidValue'],
      [patch([{ op: 'replace', path: 'displayName', value: 7 }]), 'invalidValue'],
      [
        patch([{ op: 'replace', path: 'emails[value eq "nomatch@x.com"].value', value: other }]),
        'noTarget',
      ],
      [
        patch([{ op: 'add', path: 'emails', value: [{ value: other, type: 'home' }] }]),
        'invalidValue',
      ],
      [
        patch([
          {
            op: 'replace',
            path: 'emails',
            value: [
              { value: input.userName, type: 'work', primary: true },
              { value: other, type: 'home' },
            ],
          },
        ]),
        'invalidValue',
      ],
      [
        { ...input, emails: [{ value: other, type: 'work', primary: true }] },
        'invalidValue',
        'PUT',
      ],
      [{ ...input, name: { givenName: 3 } }, 'invalidValue', 'PUT'],
    ] as const) {
      const res = await scim(method ?? 'PATCH', `/Users/${user.id}`, body);
      expect.soft(res.status, JSON.stringify(body)).toBe(400);
      expect.soft(res.body, JSON.stringify(body)).toMatchObject({ status: '400', scimType });
    }
    expect(await stored()).toMatchObject({
      email: input.userName,
      name: 'Ada L',
      metadata: { scim: input.name },
    });
    // A POST with a second address is refused too; one repeating userName is fine.
    const twice = newUser();
    const refused = await scim('POST', '/Users', {
      ...twice,
      emails: [...twice.emails, { value: other, type: 'home' }],
    });
    expect(refused).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const echo = await scim('PUT', `/Users/${user.id}`, {
      ...input,
      emails: [{ value: input.userName.toUpperCase(), type: 'work', primary: true }],
    });
    expect(echo.status).toBe(200);
    // A new userName alone is no second email, though `emails` still shows the old one.
    const renamed = uniqueEmail('renamed');
    const rename = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'replace', path: 'userName', value: renamed }]),
    );
    expect(rename.status).toBe(200);
    expect(rename.body.emails).toEqual([expect.objectContaining({ value: renamed })]);
    // null clears displayName, and with it the name it is.
    const cleared = await scim(
      'PATCH',
      `/Users/${user.id}`,
      patch([{ op: 'replace', path: 'displayName', value: null }]),
    );
    expect(cleared.status).toBe(200);
    expect((await stored())?.name).toBe('');
  });
});
