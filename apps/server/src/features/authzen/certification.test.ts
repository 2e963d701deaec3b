import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validArbitrary } from '../../../test/fuzz/schema-arbitrary.js';
import { createKey, createPolicy, createUser } from '../../../test/helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

/**
 * The OpenID AuthZEN Authorization API 1.0 certification scenario
 * (`certification/authorization-api-1_0-scenario.md` of github.com/openid/authzen), one `it`
 * per test id of its matrix, at every level: Basic, Batch, Search (Core and Properties) and
 * Discovery, plus the transport requirements (§5) that apply to all. Its fixture is loaded
 * through `/v1/policies`, translated into secadmin policies below.
 */

const spec = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@secadmin/spec/openapi.json'), 'utf8'),
);

/**
 * Core fixture (§C.1.4 rules 1-4, §C.1.5 S1-S3). The scenario's entity data that a request may
 * leave out (bob is an admin, record-2 is archived) is written into the policies by identifier.
 */
const CORE_POLICIES = [
  {
    name: 'authzen-fixture-read',
    effect: 'allow',
    principals: ['user:alice', 'user:bob'],
    actions: ['read'],
    resources: ['record/record-1', 'record/record-2'],
  },
  {
    name: 'authzen-fixture-alice-writes-record-1',
    effect: 'allow',
    principals: ['user:alice'],
    actions: ['write'],
    resources: ['record/record-1'],
  },
  {
    name: 'authzen-fixture-bob-admin-writes-archived-record-2',
    effect: 'allow',
    principals: ['user:bob'],
    actions: ['write'],
    resources: ['record/record-2'],
  },
] as const;

/** Properties fixture (§C.1.4 rules 5-8, §C.1.5 S4-S6): decided on the request's properties. */
const PROPERTIES_POLICIES = [
  {
    name: 'authzen-fixture-alice-archived-read-only',
    effect: 'deny',
    principals: ['user:alice'],
    actions: ['write'],
    resources: ['record/*'],
    conditions: { attributes: { 'resource.status': { equals: 'archived' } } },
  },
  {
    name: 'authzen-fixture-admins-write-archived',
    effect: 'allow',
    principals: ['*'],
    actions: ['write'],
    resources: ['record/*'],
    conditions: {
      attributes: {
        'principal.role': { equals: 'admin' },
        'resource.status': { equals: 'archived' },
      },
    },
  },
  {
    name: 'authzen-fixture-bob-writes-archived',
    effect: 'allow',
    principals: ['user:bob'],
    actions: ['write'],
    resources: ['record/*'],
    conditions: { attributes: { 'resource.status': { equals: 'archived' } } },
  },
  {
    name: 'authzen-fixture-admins-write-record-2',
    effect: 'allow',
    principals: ['*'],
    actions: ['write'],
    resources: ['record/record-2'],
    conditions: { attributes: { 'principal.role': { equals: 'admin' } } },
  },
  {
    name: 'authzen-fixture-alice-soft-deletes',
    effect: 'allow',
    principals: ['user:alice'],
    actions: ['delete'],
    resources: ['record/record-1', 'record/record-2'],
    conditions: { attributes: { 'action.soft': { equals: true } } },
  },
];

/** A small vocabulary, so that random requests hit allows, denies, roles, `${self}` and conditions. */
const AGREEMENT_POLICIES = [
  { effect: 'allow', principals: ['user:u1', 'role:r1'], actions: ['read'], resources: ['doc/*'] },
  { effect: 'allow', principals: ['user:${self}'], actions: ['*'], resources: ['doc/${self}'] },
  { effect: 'deny', principals: ['*'], actions: ['delete'], resources: ['doc/d1'] },
  { effect: 'allow', principals: ['user:u2'], actions: ['write', 'delete'], resources: ['doc/*'] },
  {
    effect: 'deny',
    principals: ['user:u2'],
    actions: ['write'],
    resources: ['doc/*'],
    conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
  },
  {
    effect: 'deny',
    principals: ['*'],
    actions: ['*'],
    resources: ['doc/*'],
    conditions: { attributes: { 'resource.status': { equals: 'archived' } } },
  },
  {
    effect: 'allow',
    principals: ['*'],
    actions: ['write'],
    resources: ['doc/*'],
    conditions: { attributes: { 'principal.level': { greaterThan: 2 } } },
  },
];

/**
 * The interop "todo" decisions of the AuthZEN repository
 * (`interop/authzen-todo-backend/test/decisions-authorization-api-1_0-02.json`), restated: its
 * people are identified by opaque identities, its Todo application lets everyone read users
 * and todos, Rick, Morty and Summer create todos, Rick update and delete any todo, and Morty and
 * Summer only their own (`ownerID` in the resource's properties).
 */
const TODO_IDENTITY = {
  rick: 'CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs',
  morty: 'CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs',
  summer: 'CiRmZDI2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs',
  beth: 'CiRmZDM2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs',
  jerry: 'CiRmZDQ2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs',
} as const;
type Person = keyof typeof TODO_IDENTITY;
const todoUser = (person: Person) => `user:${TODO_IDENTITY[person]}`;
const ownTodos = (person: Person, email: string) => ({
  name: `todo-interop-${person}-own-todos`,
  effect: 'allow',
  principals: [todoUser(person)],
  actions: ['can_update_todo', 'can_delete_todo'],
  resources: ['todo/*'],
  conditions: { attributes: { 'resource.ownerID': { equals: email } } },
});
const TODO_POLICIES = [
  {
    name: 'todo-interop-everyone-reads',
    effect: 'allow',
    principals: (Object.keys(TODO_IDENTITY) as Person[]).map(todoUser),
    actions: ['can_read_user', 'can_read_todos'],
    resources: ['user/*', 'todo/*'],
  },
  {
    name: 'todo-interop-creators',
    effect: 'allow',
    principals: (['rick', 'morty', 'summer'] as const).map(todoUser),
    actions: ['can_create_todo'],
    resources: ['todo/*'],
  },
  {
    name: 'todo-interop-rick-any-todo',
    effect: 'allow',
    principals: [todoUser('rick')],
    actions: ['can_update_todo', 'can_delete_todo'],
    resources: ['todo/*'],
  },
  ownTodos('morty', 'morty@the-citadel.com'),
  ownTodos('summer', 'summer@the-smiths.com'),
];
type TodoResource = [type: string, id: string, ownerID?: string];
/** Its `evaluation` list: who, action, resource (type, id, owner), expected decision. */
const TODO_DECISIONS: [Person, string, TodoResource, boolean][] = [
  ['rick', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['rick', 'can_read_user', ['user', 'rick@the-citadel.com'], true],
  ['rick', 'can_read_todos', ['todo', 'todo-1'], true],
  ['rick', 'can_create_todo', ['todo', 'todo-1'], true],
  [
    'rick',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    true,
  ],
  [
    'rick',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b91', 'morty@the-citadel.com'],
    true,
  ],
  [
    'rick',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    true,
  ],
  [
    'rick',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b91', 'morty@the-citadel.com'],
    true,
  ],
  ['morty', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['morty', 'can_read_user', ['user', 'morty@the-citadel.com'], true],
  ['morty', 'can_read_todos', ['todo', 'todo-1'], true],
  ['morty', 'can_create_todo', ['todo', 'todo-1'], true],
  [
    'morty',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'morty',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b91', 'morty@the-citadel.com'],
    true,
  ],
  [
    'morty',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'morty',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b91', 'morty@the-citadel.com'],
    true,
  ],
  ['summer', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['summer', 'can_read_user', ['user', 'summer@the-smiths.com'], true],
  ['summer', 'can_read_todos', ['todo', 'todo-1'], true],
  ['summer', 'can_create_todo', ['todo', 'todo-1'], true],
  [
    'summer',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'summer',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b93', 'summer@the-smiths.com'],
    true,
  ],
  [
    'summer',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'summer',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b93', 'summer@the-smiths.com'],
    true,
  ],
  ['beth', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['beth', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['beth', 'can_read_todos', ['todo', 'todo-1'], true],
  ['beth', 'can_create_todo', ['todo', 'todo-1'], false],
  [
    'beth',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'beth',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b94', 'beth@the-smiths.com'],
    false,
  ],
  [
    'beth',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'beth',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b94', 'beth@the-smiths.com'],
    false,
  ],
  ['jerry', 'can_read_user', ['user', 'beth@the-smiths.com'], true],
  ['jerry', 'can_read_user', ['user', 'jerry@the-smiths.com'], true],
  ['jerry', 'can_read_todos', ['todo', 'todo-1'], true],
  ['jerry', 'can_create_todo', ['todo', 'todo-1'], false],
  [
    'jerry',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'jerry',
    'can_update_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b95', 'jerry@the-smiths.com'],
    false,
  ],
  [
    'jerry',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
    false,
  ],
  [
    'jerry',
    'can_delete_todo',
    ['todo', '7240d0db-8ff0-41ec-98b2-34a096273b95', 'jerry@the-smiths.com'],
    false,
  ],
];
/** Its `evaluations` list: who, action, todos (id, owner), expected decisions. */
const TODO_BATCHES: [Person, string, [string, string][], boolean[]][] = [
  [
    'rick',
    'can_update_todo',
    [
      ['7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
      ['7240d0db-8ff0-41ec-98b2-34a096273b95', 'jerry@the-smiths.com'],
    ],
    [true, true],
  ],
  [
    'morty',
    'can_update_todo',
    [
      ['7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
      ['7240d0db-8ff0-41ec-98b2-34a096273b91', 'morty@the-citadel.com'],
    ],
    [false, true],
  ],
  [
    'jerry',
    'can_update_todo',
    [
      ['7240d0db-8ff0-41ec-98b2-34a096273b92', 'rick@the-citadel.com'],
      ['7240d0db-8ff0-41ec-98b2-34a096273b95', 'jerry@the-smiths.com'],
    ],
    [false, false],
  ],
];

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** Generated bodies per AuthZEN operation (the `/v1` spec fuzz covers `/v1` only). */
const FUZZ_RUNS = Math.ceil(RUNS / 2);

const PUBLIC_URL = 'https://pdp.secadmin.test';

const alice = { type: 'user', id: 'alice' };
const bob = { type: 'user', id: 'bob' };
const bobAdmin = { ...bob, properties: { role: 'admin' } };
const read = { name: 'read' };
const write = { name: 'write' };
const record1 = { type: 'record', id: 'record-1' };
const record2 = { type: 'record', id: 'record-2' };
const record2Archived = { ...record2, properties: { status: 'archived' } };
const context = { time: '2025-06-27T18:03-07:00', ip: '192.168.1.1' };

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Whether a JSON value holds a key that the server refuses anywhere in a body. */
function hasReservedKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasReservedKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, inner]) => RESERVED_KEYS.has(key) || hasReservedKey(inner),
  );
}

describe('AuthZEN certification scenario', () => {
  let server: TestServer;
  let storedUser: string;

  // biome-ignore lint/suspicious/noExplicitAny: the tests read AuthZEN's JSON as it comes
  type Reply = { status: number; headers: Headers; body: any };
  const send = async (
    path: string,
    body: string | undefined,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.rootKey}`,
        'content-type': 'application/json',
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    send(path, JSON.stringify(body), headers);
  const evaluation = (body: unknown) => post('/access/v1/evaluation', body);
  const evaluations = (body: unknown) => post('/access/v1/evaluations', body);
  const searchSubject = (body: unknown) => post('/access/v1/search/subject', body);
  const searchResource = (body: unknown) => post('/access/v1/search/resource', body);
  const searchAction = (body: unknown) => post('/access/v1/search/action', body);

  const decisionOf = async (body: unknown) => {
    const reply = await evaluation(body);
    expect(reply.status).toBe(200);
    expect(typeof reply.body.decision).toBe('boolean');
    return reply.body.decision as boolean;
  };
  const decisionsOf = async (body: unknown) => {
    const reply = await evaluations(body);
    expect(reply.status).toBe(200);
    return (reply.body.evaluations as { decision: boolean }[]).map((e) => e.decision);
  };
  const ids = (reply: Reply) => {
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body.results)).toBe(true);
    return (reply.body.results as { id: string }[]).map((r) => r.id);
  };
  const names = (reply: Reply) => {
    expect(reply.status).toBe(200);
    return (reply.body.results as { name: string }[]).map((r) => r.name);
  };

  beforeAll(async () => {
    server = await startTestServer({ publicUrl: PUBLIC_URL });
    const policies = [
      ...CORE_POLICIES,
      ...PROPERTIES_POLICIES,
      ...TODO_POLICIES,
      // Their own types and identifiers: they change no decision of the scenario.
      ...AGREEMENT_POLICIES.map((policy, i) => ({ name: `agreement-${i}`, ...policy })),
    ];
    for (const policy of policies) {
      const created = await fetch(`${server.url}/v1/policies`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.rootKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(policy),
      });
      if (created.status !== 201)
        throw new Error(`fixture policy ${policy.name}: ${created.status} ${await created.text()}`);
    }
    storedUser = (await createUser(server.client, { roles: ['r1'] })).id;
  });
  afterAll(() => server?.stop());

  describe('Basic Core', () => {
    it('c-2-2-1 fixture request: permit decision', async () => {
      const reply = await evaluation({ subject: alice, action: read, resource: record1 });
      expect(reply.status).toBe(200);
      expect(reply.body.decision).toBe(true);
    });

    it('c-2-2-2 fixture request: deny decision', async () => {
      expect(await decisionOf({ subject: bob, action: write, resource: record1 })).toBe(false);
    });

    it('c-2-2-3 request with optional context', async () => {
      expect(await decisionOf({ subject: alice, action: read, resource: record1, context })).toBe(
        true,
      );
    });

    it('c-2-2-8 request with additional properties', async () => {
      expect(
        await decisionOf({
          subject: { ...alice, properties: { department: 'Sales', role: 'manager' } },
          action: { name: 'read', properties: { method: 'GET' } },
          resource: { ...record1, properties: { status: 'active', owner: 'bob' } },
        }),
      ).toBe(true);
    });

    it('c-2-2-9 request with unknown fields', async () => {
      expect(
        await decisionOf({
          subject: alice,
          action: read,
          resource: record1,
          foo: 'bar',
          futureField: { nested: true },
        }),
      ).toBe(true);
    });

    it('c-2-3 response format: a boolean decision, and context an object when present', async () => {
      for (const body of [
        { subject: alice, action: read, resource: record1 },
        { subject: bob, action: write, resource: record1 },
      ]) {
        const reply = await evaluation(body);
        expect(reply.status).toBe(200);
        expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
        expect(typeof reply.body.decision).toBe('boolean');
        if ('context' in reply.body) expect(typeof reply.body.context).toBe('object');
      }
      // No `data` envelope: AuthZEN's own shape.
      const reply = await evaluation({ subject: alice, action: read, resource: record1 });
      expect(reply.body).not.toHaveProperty('data');
      expect(reply.body.context).toMatchObject({ reason: 'allow' });
    });

    it('c-2-4 error handling: missing fields and sub-fields, bad media type, bad JSON, empty body, wrong types', async () => {
      const bad: unknown[] = [
        { action: read, resource: record1 },
        { subject: alice, resource: record1 },
        { subject: alice, action: read },
        { subject: { id: 'alice' }, action: read, resource: record1 },
        { subject: { type: 'user' }, action: read, resource: record1 },
        { subject: alice, action: {}, resource: record1 },
        { subject: alice, action: read, resource: { id: 'record-1' } },
        { subject: alice, action: read, resource: { type: 'record' } },
        { subject: 'alice', action: read, resource: record1 },
        { subject: alice, action: { name: 123 }, resource: record1 },
      ];
      for (const body of bad) {
        const reply = await evaluation(body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(reply.body.error.code).toBe('invalid_request');
      }
      const valid = JSON.stringify({ subject: alice, action: read, resource: record1 });
      expect(
        (await send('/access/v1/evaluation', valid, { 'content-type': 'text/plain' })).status,
      ).toBe(400);
      expect((await send('/access/v1/evaluation', '{"subject": {"type": "user",')).status).toBe(
        400,
      );
      expect((await send('/access/v1/evaluation', '')).status).toBe(400);
      expect((await send('/access/v1/evaluation', undefined)).status).toBe(400);
    });

    it('c-2-5 header handling: X-Request-ID echoed, and its absence is no failure', async () => {
      const id = '0f8e6c2a-3b1d-4e5f-9a7b-1c2d3e4f5a6b';
      const echoed = await post(
        '/access/v1/evaluation',
        { subject: alice, action: read, resource: record1 },
        { 'X-Request-ID': id },
      );
      expect(echoed.status).toBe(200);
      expect(echoed.headers.get('x-request-id')).toBe(id);
      // Ids that secadmin would not take as its own request id are echoed all the same.
      for (const traced of [
        'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
        `pep ${'x'.repeat(200)}`,
      ]) {
        const reply = await post(
          '/access/v1/search/action',
          { subject: alice, resource: record1 },
          { 'X-Request-ID': traced },
        );
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-request-id')).toBe(traced);
        const refused = await send('/access/v1/evaluation', '{', { 'X-Request-ID': traced });
        expect(refused.status).toBe(400);
        expect(refused.headers.get('x-request-id')).toBe(traced);
      }
      const absent = await evaluation({ subject: alice, action: read, resource: record1 });
      expect(absent.status).toBe(200);
    });

    it('c-2-6 idempotency: the same request gets the same decision every time', async () => {
      const body = { subject: bob, action: read, resource: record1 };
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await decisionOf(body));
      expect(decisions).toEqual([true, true, true]);
    });
  });

  describe('Basic Properties', () => {
    it('c-2-2-4 fixture request: deny based on properties', async () => {
      expect(await decisionOf({ subject: alice, action: write, resource: record2Archived })).toBe(
        false,
      );
    });

    it('c-2-2-5 fixture request: permit based on subject properties', async () => {
      expect(
        await decisionOf({ subject: bobAdmin, action: write, resource: record2Archived }),
      ).toBe(true);
    });

    it('c-2-2-6 fixture request: permit based on action properties', async () => {
      expect(
        await decisionOf({
          subject: alice,
          action: { name: 'delete', properties: { soft: true } },
          resource: record1,
        }),
      ).toBe(true);
    });

    it('c-2-2-7 fixture request: deny based on action properties', async () => {
      expect(
        await decisionOf({
          subject: alice,
          action: { name: 'delete', properties: { soft: false } },
          resource: record1,
        }),
      ).toBe(false);
    });
  });

  describe('Batch Core', () => {
    it('c-3-2-1 batch request with evaluations array', async () => {
      const reply = await evaluations({
        subject: alice,
        action: read,
        evaluations: [{ resource: record1 }, { resource: record2 }],
      });
      expect(reply.status).toBe(200);
      expect(reply.body.evaluations).toHaveLength(2);
      for (const item of reply.body.evaluations) expect(typeof item.decision).toBe('boolean');
    });

    it('c-3-2-2 batch with fixture decisions validated', async () => {
      expect(
        await decisionsOf({
          subject: bob,
          resource: record1,
          evaluations: [{ action: read }, { action: write }],
        }),
      ).toEqual([true, false]);
    });

    it('c-3-2-5 batch with fully specified evaluations (no defaults)', async () => {
      expect(
        await decisionsOf({
          evaluations: [
            { subject: alice, action: read, resource: record1 },
            { subject: bob, action: write, resource: record1 },
          ],
        }),
      ).toEqual([true, false]);
    });

    it('c-3-2-6 batch with context inheritance', async () => {
      const reply = await evaluations({
        subject: alice,
        action: read,
        context: { time: '2025-06-27T18:03-07:00' },
        evaluations: [
          { resource: record1 },
          {
            resource: record2,
            context: { time: '2025-06-27T19:00-07:00', source: 'batch-override' },
          },
        ],
      });
      expect(reply.status).toBe(200);
      expect(reply.body.evaluations).toHaveLength(2);
      for (const item of reply.body.evaluations) expect(typeof item.decision).toBe('boolean');
    });

    it('c-3-3 response format: same length and order as the request, a decision each, no top-level decision', async () => {
      const items = [
        { subject: bob, action: write, resource: record1 },
        { subject: alice, action: read, resource: record1 },
        { subject: bob, action: write, resource: record1 },
        { subject: bob, action: read, resource: record1 },
      ];
      const reply = await evaluations({ evaluations: items });
      expect(reply.status).toBe(200);
      expect(reply.body).not.toHaveProperty('decision');
      expect(reply.body.evaluations.map((e: { decision: boolean }) => e.decision)).toEqual([
        false,
        true,
        false,
        true,
      ]);
    });

    it('c-3-4 error handling: a failed item under execute_all, missing and empty evaluations', async () => {
      const failedItem = await evaluations({
        subject: alice,
        action: read,
        options: { evaluations_semantic: 'execute_all' },
        evaluations: [{ resource: record1 }, {}],
      });
      expect(failedItem.status).toBe(200);
      expect(failedItem.body.evaluations).toHaveLength(2);
      expect(failedItem.body.evaluations[0].decision).toBe(true);
      expect(failedItem.body.evaluations[1].decision).toBe(false);
      expect(failedItem.body.evaluations[1].context.error).toEqual({
        status: 400,
        message: expect.stringContaining('resource'),
      });

      const missing = await evaluations({ subject: alice, action: read, resource: record1 });
      expect(missing.status).toBe(200);
      expect(missing.body).toEqual(expect.objectContaining({ decision: true }));
      expect(missing.body).not.toHaveProperty('evaluations');

      const empty = await evaluations({
        subject: alice,
        action: read,
        resource: record1,
        evaluations: [],
      });
      expect(empty.status).toBe(200);
      expect(empty.body.decision).toBe(true);
    });
  });

  describe('Batch Properties', () => {
    it('c-3-2-3 batch with properties validated', async () => {
      expect(
        await decisionsOf({
          subject: alice,
          action: write,
          evaluations: [
            { resource: { ...record1, properties: { status: 'active' } } },
            { resource: record2Archived },
          ],
        }),
      ).toEqual([true, false]);
    });

    it('c-3-2-4 batch with subject properties validated', async () => {
      expect(
        await decisionsOf({
          action: write,
          resource: record2Archived,
          evaluations: [{ subject: alice }, { subject: bobAdmin }],
        }),
      ).toEqual([false, true]);
    });

    it('c-3-2-7 batch with top-level default inheritance', async () => {
      expect(
        await decisionsOf({
          subject: alice,
          action: write,
          resource: { ...record1, properties: { status: 'active' } },
          evaluations: [{}, { resource: record2Archived }],
        }),
      ).toEqual([true, false]);
    });
  });

  describe('Search Core', () => {
    const s1 = { subject: { type: 'user' }, action: read, resource: record1 };
    const s2 = { subject: alice, action: read, resource: { type: 'record' } };
    const s3 = { subject: alice, resource: record1 };

    it('c-4-2-1 valid subject search request with non-empty results', async () => {
      const reply = await searchSubject(s1);
      expect(ids(reply)).toEqual(expect.arrayContaining(['alice', 'bob']));
      for (const result of reply.body.results) expect(result.type).toBe('user');
    });

    it('c-4-2-2 subject search with context', async () => {
      expect(ids(await searchSubject({ ...s1, context }))).toEqual(ids(await searchSubject(s1)));
    });

    it('c-4-2-3 subject search with subject id present', async () => {
      const reply = await searchSubject({ ...s1, subject: alice });
      expect(ids(reply)).toEqual(ids(await searchSubject(s1)));
      expect(ids(reply)).toContain('bob');
    });

    it('c-4-3-1 valid resource search request with non-empty results', async () => {
      const reply = await searchResource(s2);
      expect(ids(reply)).toContain('record-1');
      for (const result of reply.body.results) expect(result.type).toBe('record');
    });

    it('c-4-3-2 resource search with context', async () => {
      expect(ids(await searchResource({ ...s2, context }))).toEqual(ids(await searchResource(s2)));
    });

    it('c-4-3-3 resource search with resource id present', async () => {
      expect(ids(await searchResource({ ...s2, resource: record1 }))).toEqual(
        ids(await searchResource(s2)),
      );
    });

    it('c-4-4-1 valid action search request with non-empty results', async () => {
      expect(names(await searchAction(s3))).toEqual(expect.arrayContaining(['read', 'write']));
    });

    it('c-4-4-2 action search with context', async () => {
      expect(names(await searchAction({ ...s3, context }))).toEqual(names(await searchAction(s3)));
    });

    it('c-4-5 pagination: page limit, page token, response format', async () => {
      const all = ids(await searchSubject(s1));
      const seen: string[] = [];
      let token: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const reply = await searchSubject({
          ...s1,
          page: token === undefined ? { limit: 1 } : { token, limit: 1 },
        });
        seen.push(...ids(reply));
        expect(reply.body.results.length).toBeLessThanOrEqual(1);
        expect(typeof reply.body.page).toBe('object');
        expect(typeof reply.body.page.next_token).toBe('string');
        expect(reply.body.page.count).toBe(reply.body.results.length);
        token = reply.body.page.next_token;
        if (token === '') break;
      }
      expect(token).toBe('');
      expect(seen).toEqual(all);
      // A token from the first page of another search is refused, naming the field.
      const first = await searchSubject({ ...s1, page: { limit: 1 } });
      const foreign = await searchSubject({
        ...s1,
        action: write,
        page: { token: first.body.page.next_token },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.body.error.details).toEqual([
        expect.objectContaining({ field: 'body.page.token' }),
      ]);
    });

    it('c-4-6 empty results: unknown identifier and unknown type, on all three searches', async () => {
      const nobody = { type: 'user', id: 'nonexistent-user' };
      expect(ids(await searchSubject({ ...s1, subject: { type: 'spaceship' } }))).toEqual([]);
      expect(ids(await searchResource({ ...s2, resource: { type: 'spaceship' } }))).toEqual([]);
      expect(names(await searchAction({ subject: nobody, resource: record1 }))).toEqual([]);
      expect(ids(await searchSubject({ ...s1, resource: { type: 'record', id: 'nope' } }))).toEqual(
        [],
      );
      expect(ids(await searchResource({ ...s2, subject: nobody }))).toEqual([]);
    });

    it('c-4-7 search error handling: missing fields and sub-fields', async () => {
      const replies = await Promise.all([
        searchSubject({ subject: { type: 'user' }, resource: record1 }),
        searchResource({ action: read, resource: { type: 'record' } }),
        searchAction({ subject: alice }),
        searchSubject({ subject: { type: 'user' }, action: read, resource: { type: 'record' } }),
        searchResource({ subject: { type: 'user' }, action: read, resource: { type: 'record' } }),
        searchAction({ subject: { type: 'user' }, resource: record1 }),
      ]);
      expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400, 400, 400, 400]);
    });
  });

  describe('Search Properties', () => {
    it('c-4-2-4 subject search with resource properties: fixture validated', async () => {
      expect(
        ids(
          await searchSubject({
            subject: { type: 'user' },
            action: write,
            resource: record2Archived,
          }),
        ),
      ).toContain('bob');
    });

    it('c-4-3-4 resource search with subject properties: fixture validated', async () => {
      expect(
        ids(
          await searchResource({ subject: bobAdmin, action: write, resource: { type: 'record' } }),
        ),
      ).toContain('record-2');
    });

    it('c-4-4-3 action search with properties: fixture validated', async () => {
      expect(names(await searchAction({ subject: bobAdmin, resource: record2Archived }))).toContain(
        'write',
      );
    });
  });

  describe('Transport', () => {
    it('c-5 transport: JSON in and out, 400 for missing fields, X-Request-ID echoed, unknown fields ignored', async () => {
      const id = 'transport-check-1';
      const reply = await post(
        '/access/v1/search/action',
        { subject: alice, resource: record1, extra: [1, 2, 3] },
        { 'X-Request-ID': id },
      );
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.headers.get('x-request-id')).toBe(id);
      expect((await evaluations({ evaluations: [{}], subject: 'alice' })).status).toBe(400);
    });
  });

  describe('Discovery', () => {
    it('c-6 PDP metadata at the well-known URI, without a key', async () => {
      const res = await fetch(`${server.url}/.well-known/authzen-configuration`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const metadata = await res.json();
      expect(metadata).toEqual({
        policy_decision_point: PUBLIC_URL,
        access_evaluation_endpoint: `${PUBLIC_URL}/access/v1/evaluation`,
        access_evaluations_endpoint: `${PUBLIC_URL}/access/v1/evaluations`,
        search_subject_endpoint: `${PUBLIC_URL}/access/v1/search/subject`,
        search_resource_endpoint: `${PUBLIC_URL}/access/v1/search/resource`,
        search_action_endpoint: `${PUBLIC_URL}/access/v1/search/action`,
        capabilities: [],
      });
    });
  });

  describe('Agreement with the simulator (property)', () => {
    const ok = async (path: string, body: unknown) => {
      const reply = await post(path, body);
      expect(reply.status, path).toBe(200);
      return reply.body;
    };

    it('agrees with /v1/policies/simulate for random requests: decision and matched policies, alone and in a batch', async () => {
      const properties = fc.option(
        fc.record(
          { status: fc.constantFrom('archived', 'active'), level: fc.integer({ min: 0, max: 4 }) },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      );
      const question = fc.record({
        subject: fc.record({
          type: fc.constantFrom('user', 'role', 'service'),
          id: fc.constantFrom('u1', 'u2', 'r1', 'd1', 'stored'),
          properties,
        }),
        action: fc.record({
          name: fc.constantFrom('read', 'READ', 'write', 'delete', 'list'),
          properties,
        }),
        resource: fc.record({
          type: fc.constantFrom('doc', 'record'),
          id: fc.constantFrom('d1', 'd2', 'u1', 'u2', 'stored'),
          properties,
        }),
        context: fc.option(fc.record({ ip: fc.constantFrom('10.1.2.3', '192.168.1.1') }), {
          nil: undefined,
        }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(question, { minLength: 1, maxLength: 5 }), async (questions) => {
          const concrete = questions.map((q) => {
            const id = (text: string) => (text === 'stored' ? storedUser : text);
            const strip = <T extends { properties?: unknown }>(entity: T) => {
              const { properties, ...rest } = entity;
              return properties === undefined ? rest : entity;
            };
            return {
              subject: strip({ ...q.subject, id: id(q.subject.id) }),
              action: strip(q.action),
              resource: strip({ ...q.resource, id: id(q.resource.id) }),
              ...(q.context ? { context: q.context } : {}),
            };
          });
          const batch = await ok('/access/v1/evaluations', { evaluations: concrete });
          for (const [i, q] of concrete.entries()) {
            const attributes = {
              ...('properties' in q.subject ? { principal: q.subject.properties } : {}),
              ...('properties' in q.resource ? { resource: q.resource.properties } : {}),
              ...('properties' in q.action ? { action: q.action.properties } : {}),
            };
            const simulated = (
              await ok('/v1/policies/simulate', {
                principal: `${q.subject.type}:${q.subject.id}`,
                action: q.action.name,
                resource: `${q.resource.type}/${q.resource.id}`,
                ...(q.context ? { context: q.context } : {}),
                ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
              })
            ).data;
            const expected = {
              decision: simulated.allowed,
              context: {
                reason: simulated.decision,
                matchedPolicies: simulated.matchedPolicies.map((p: { id: string }) => p.id),
              },
            };
            expect(await ok('/access/v1/evaluation', q)).toEqual(expected);
            expect(batch.evaluations[i]).toEqual(expected);
          }
        }),
        { numRuns: RUNS },
      );
    });
  });

  describe('Interop todo decisions (authorization-api-1_0-02)', () => {
    const todo = ([type, id, ownerID]: TodoResource) => ({
      type,
      id,
      ...(ownerID ? { properties: { ownerID } } : {}),
    });
    it('answers every decision of its evaluation list', async () => {
      for (const [person, name, resource, expected] of TODO_DECISIONS) {
        const reply = await evaluation({
          subject: { type: 'user', id: TODO_IDENTITY[person] },
          action: { name },
          resource: todo(resource),
        });
        expect(reply.body.decision, `${person} ${name} ${resource.join(' ')}`).toBe(expected);
      }
    });
    it('answers every decision of its evaluations list', async () => {
      for (const [person, name, todos, expected] of TODO_BATCHES) {
        expect(
          await decisionsOf({
            subject: { type: 'user', id: TODO_IDENTITY[person] },
            action: { name },
            evaluations: todos.map(([id, ownerID]) => ({ resource: todo(['todo', id, ownerID]) })),
          }),
          `${person} ${name}`,
        ).toEqual(expected);
      }
    });
  });

  /** What secadmin adds around the scenario: its keys, bounds and refusals. Runs last: it adds state. */
  describe('secadmin rules', () => {
    const asKey = (secret: string | undefined, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const question = { subject: alice, action: read, resource: record1 };

    it('needs a key allowed policies:simulate, and hides the policies it may not read', async () => {
      expect((await asKey(undefined, '/access/v1/evaluation', question)).status).toBe(401);
      const outsider = await createKey(server.client, 'service:authzen-outsider');
      expect((await asKey(outsider.secret, '/access/v1/evaluation', question)).status).toBe(403);
      await createPolicy(server.client, {
        principals: ['service:authzen-pep'],
        actions: ['policies:simulate'],
        resources: ['policies'],
      });
      const pep = await createKey(server.client, 'service:authzen-pep');
      const reply = await asKey(pep.secret, '/access/v1/evaluation', question);
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({
        decision: true,
        context: { reason: 'allow', matchedPolicies: ['hidden'] },
      });
    });

    it('offers stored users as subject candidates only to keys that may list users, and sees policy changes at once', async () => {
      const role = `authzen-readers-${Date.now()}`;
      const user = await createUser(server.client, { roles: [role] });
      const search = { subject: { type: 'user' }, action: { name: 'audit' }, resource: record1 };
      expect(ids(await searchSubject(search))).toEqual([]);
      const policy = await createPolicy(server.client, {
        principals: [`role:${role}`, 'user:carol'],
        actions: ['audit'],
        resources: ['record/record-1'],
      });
      expect(ids(await searchSubject(search))).toEqual(['carol', user.id]);
      await createPolicy(server.client, {
        principals: ['service:authzen-simulator'],
        actions: ['policies:simulate'],
        resources: ['policies'],
      });
      const simulator = await createKey(server.client, 'service:authzen-simulator');
      const bySimulator = async () => {
        const res = await asKey(simulator.secret, '/access/v1/search/subject', search);
        return ((await res.json()) as { results: unknown[] }).results;
      };
      // `carol` is named only by a policy this key may not read: not offered to it.
      expect(await bySimulator()).toEqual([]);
      await createPolicy(server.client, {
        principals: ['service:authzen-simulator'],
        actions: ['users:list'],
        resources: ['users'],
      });
      expect(await bySimulator()).toEqual([{ type: 'user', id: user.id }]);
      await createPolicy(server.client, {
        principals: ['service:authzen-simulator'],
        actions: ['policies:read'],
        resources: [`policies/${policy.id}`],
      });
      expect(await bySimulator()).toEqual([
        { type: 'user', id: 'carol' },
        { type: 'user', id: user.id },
      ]);
      // Paged one by one, the literal first, then the stored user, then the end.
      const first = await searchSubject({ ...search, page: { limit: 1 } });
      expect(ids(first)).toEqual(['carol']);
      const second = await searchSubject({
        ...search,
        page: { limit: 1, token: first.body.page.next_token },
      });
      expect(ids(second)).toEqual([user.id]);
      const deleted = await fetch(`${server.url}/v1/policies/${policy.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
      expect(deleted.status).toBe(204);
      expect(ids(await searchSubject(search))).toEqual([]);
      expect(
        names(await searchAction({ subject: { type: 'user', id: 'carol' }, resource: record1 })),
      ).toEqual([]);
    });

    it('does not show a key that may not list users the stored users that policies name', async () => {
      const named = await createUser(server.client, {});
      const search = {
        subject: { type: 'user' },
        action: { name: 'escort' },
        resource: { type: 'vault', id: 'v1' },
      };
      const escort = await createPolicy(server.client, {
        principals: [`user:${named.id}`, 'user:dave'],
        actions: ['escort'],
        resources: ['vault/v1'],
      });
      // It may read the policy (so its names may be offered), not list users.
      await createPolicy(server.client, {
        principals: ['service:authzen-no-users'],
        actions: ['policies:simulate', 'policies:read'],
        resources: ['policies', `policies/${escort.id}`],
      });
      const simulator = await createKey(server.client, 'service:authzen-no-users');
      const reply = await asKey(simulator.secret, '/access/v1/search/subject', search);
      expect(reply.status).toBe(200);
      // `dave` is only a name in a policy; the stored user is an account it may not list.
      expect(((await reply.json()) as { results: unknown[] }).results).toEqual([
        { type: 'user', id: 'dave' },
      ]);
      const paged = await asKey(simulator.secret, '/access/v1/search/subject', {
        ...search,
        page: { limit: 1 },
      });
      expect(await paged.json()).toMatchObject({ results: [{ type: 'user', id: 'dave' }] });
      expect(ids(await searchSubject(search)).sort()).toEqual(['dave', named.id].sort());
    });

    it('pages on from the last result returned, not from its place, when policies change between pages', async () => {
      const type = `crate-${Date.now()}`;
      const search = { subject: alice, action: { name: 'open' }, resource: { type } };
      const allow = (resources: string[]) =>
        createPolicy(server.client, {
          principals: ['user:alice'],
          actions: ['open'],
          resources: resources.map((id) => `${type}/${id}`),
        });
      const remove = async (id: string) => {
        const res = await fetch(`${server.url}/v1/policies/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${server.rootKey}` },
        });
        expect(res.status).toBe(204);
      };
      await allow(['m', 'n', 'o']);
      const first = await allow(['a']);
      const page1 = await searchResource({ ...search, page: { limit: 2 } });
      expect(ids(page1)).toEqual(['a', 'm']);
      // A literal before the page's end goes away: `n` is next all the same, not skipped.
      await remove(first.id);
      const page2 = await searchResource({
        ...search,
        page: { limit: 1, token: page1.body.page.next_token },
      });
      expect(ids(page2)).toEqual(['n']);
      // One comes before it: `o` is next, `n` is not repeated.
      await allow(['b']);
      const page3 = await searchResource({
        ...search,
        page: { limit: 1, token: page2.body.page.next_token },
      });
      expect(ids(page3)).toEqual(['o']);
    });

    it('stops at the first deny or permit when asked, and answers each bad item alone', async () => {
      const items = [
        { subject: alice, action: read, resource: record1 },
        { subject: bob, action: write, resource: record1 },
        { subject: bob, action: read, resource: record1 },
      ];
      const decisions = async (semantic: string) =>
        (
          await evaluations({ options: { evaluations_semantic: semantic }, evaluations: items })
        ).body.evaluations.map((e: { decision: boolean }) => e.decision);
      expect(await decisions('execute_all')).toEqual([true, false, true]);
      expect(await decisions('deny_on_first_deny')).toEqual([true, false]);
      expect(await decisions('permit_on_first_permit')).toEqual([true]);

      const reply = await evaluations({
        action: read,
        resource: record1,
        evaluations: [
          { subject: { type: 'user', id: 7 } },
          'alice',
          { subject: alice, context: { ip: 'not-an-ip' } },
          { subject: { type: 'us:er', id: 'x' } },
          { subject: alice },
        ],
      });
      expect(reply.status).toBe(200);
      const [wrongType, notObject, badIp, badType, fine] = reply.body.evaluations;
      expect(wrongType.context.error.message).toContain('subject.id');
      expect(notObject.context.error.status).toBe(400);
      expect(badIp.context.error.message).toContain('context.ip');
      expect(badType.context.error.message).toContain('subject.type');
      for (const failed of [wrongType, notObject, badIp, badType])
        expect(failed.decision).toBe(false);
      expect(fine).toEqual({
        decision: true,
        context: { reason: 'allow', matchedPolicies: [expect.stringMatching(/^pol_/)] },
      });
    });

    it('answers generated bodies of every AuthZEN operation, and random batch items, with 200 or 400, never a 5xx', async () => {
      // Responses are checked against the spec by the test server: a drift would be a 500.
      for (const path of [
        '/access/v1/evaluation',
        '/access/v1/evaluations',
        '/access/v1/search/subject',
        '/access/v1/search/resource',
        '/access/v1/search/action',
      ]) {
        const schema = spec.paths[path].post.requestBody.content['application/json'].schema;
        await fc.assert(
          fc.asyncProperty(validArbitrary(spec, schema), async (body) => {
            const reply = await post(path, body);
            expect([200, 400], `${path} ${JSON.stringify(reply.body)}`).toContain(reply.status);
          }),
          { numRuns: FUZZ_RUNS },
        );
      }
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 5 }),
          async (items) => {
            const reply = await evaluations({ ...question, evaluations: items });
            // A reserved key anywhere refuses the whole body (strict input), not one item.
            if (hasReservedKey(items)) {
              expect(reply.status, JSON.stringify(reply.body)).toBe(400);
              expect(reply.body.error.details[0].message).toBe('is a reserved key name');
              return;
            }
            expect(reply.status, JSON.stringify(reply.body)).toBe(200);
            const answers = items.length === 0 ? [reply.body] : reply.body.evaluations;
            for (const answer of answers) expect(typeof answer.decision).toBe('boolean');
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    });

    it('refuses what is past its bounds or hostile with a 400 naming the field', async () => {
      const tooMany = await evaluations({
        ...question,
        evaluations: Array.from({ length: 101 }, () => ({})),
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error.details[0].field).toBe('body.evaluations');
      const hostile = await send(
        '/access/v1/evaluation',
        '{"subject":{"type":"user","id":"alice","properties":{"__proto__":{"role":"admin"}}},"action":{"name":"read"},"resource":{"type":"record","id":"record-1"}}',
      );
      expect(hostile.status).toBe(400);
      expect(hostile.body.error.details[0].field).toBe('body.subject.properties.__proto__');
      const big = await evaluation({
        ...question,
        resource: { ...record1, properties: { note: 'x'.repeat(17_000) } },
      });
      expect(big.status).toBe(400);
      expect(big.body.error.details).toEqual([
        { field: 'body.properties', message: 'must be at most 16384 bytes when serialized' },
      ]);
      const badIp = await evaluation({ ...question, context: { ip: 'nowhere' } });
      expect(badIp.status).toBe(400);
      expect(badIp.body.error.details).toEqual([
        expect.objectContaining({ field: 'body.context.ip' }),
      ]);
      const forged = await searchAction({
        subject: alice,
        resource: record1,
        page: { token: 'eyJzIjoiIn0.AAAAAAAAAAAAAAAAAAAAAA' },
      });
      expect(forged.status).toBe(400);
      expect(forged.body.error.details[0].field).toBe('body.page.token');
      const limit = await searchAction({
        subject: alice,
        resource: record1,
        page: { limit: 1001 },
      });
      expect(limit.status).toBe(400);
    });

    it('decides only subjects that are principals (user, role, service): another type is no way around a stored user', async () => {
      // `User:<id>` is not the stored user `user:<id>`: its own properties, its inactivity and
      // the policies naming it would not count, only those for any principal (`*`).
      const inactive = await createUser(server.client, { roles: ['r1'] });
      const patched = await fetch(`${server.url}/v1/users/${inactive.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ active: false }),
      });
      expect(patched.status).toBe(200);
      const asStored = { type: 'user', id: inactive.id, properties: { role: 'admin' } };
      const question = { action: write, resource: record2Archived };
      expect(await decisionOf({ subject: asStored, ...question })).toBe(false);
      for (const type of ['User', 'USER', 'spaceship']) {
        const subject = { ...asStored, type };
        const refused = await evaluation({ subject, ...question });
        expect(refused.status).toBe(400);
        expect(refused.body.error.details).toEqual([
          { field: 'body.subject.type', message: 'must be user, role or service' },
        ]);
        const batch = await evaluations({ ...question, evaluations: [{ subject }] });
        expect(batch.status).toBe(200);
        expect(batch.body.evaluations).toEqual([
          {
            decision: false,
            context: {
              error: { status: 400, message: 'subject.type: must be user, role or service' },
            },
          },
        ]);
        // A search finds nothing for a subject of a type it does not know (certification c-4-6).
        expect(
          ids(await searchResource({ subject, action: write, resource: { type: 'record' } })),
        ).toEqual([]);
        expect(names(await searchAction({ subject, resource: record2Archived }))).toEqual([]);
      }
    });

    it('refuses a search past its bounds even when no candidate is left to decide', async () => {
      // No stored policy names a resource of this type: nothing reaches the simulator.
      const nothingNamed = { type: `unnamed-${Date.now()}` };
      const wideContext = await searchResource({
        subject: alice,
        action: read,
        resource: nothingNamed,
        context: { note: 'x'.repeat(17_000) },
      });
      expect(wideContext.status).toBe(400);
      expect(wideContext.body.error.details).toEqual([
        { field: 'body.context', message: 'must be at most 16384 bytes when serialized' },
      ]);
      let deep: unknown = 'x';
      for (let level = 0; level < 8; level++) deep = { deeper: deep };
      const deepProperties = await searchSubject({
        subject: { type: nothingNamed.type, properties: { nested: deep } },
        action: read,
        resource: record1,
      });
      expect(deepProperties.status).toBe(400);
      expect(deepProperties.body.error.details).toEqual([
        { field: 'body.properties', message: 'must be nested at most 8 levels deep' },
      ]);
    });
  });
});
