import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/operations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  bodyFields,
  hostileValue,
  resolver,
  type Schema,
  setAt,
  validArbitrary,
  wrongTypeValues,
} from './schema-arbitrary.js';

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype'];
const PLACEHOLDER = '__hostile_key_placeholder__';

/** Thousands of requests each: generous, because CI shares two loaded cores. */
const FUZZ_TIMEOUT = 180_000;

const spec = loadSpec() as Schema;
const resolve = resolver(spec);

interface Operation {
  id: string;
  method: string;
  path: string;
  parameters: Schema[];
  body: Schema | undefined;
  statuses: Set<number>;
}

const operations: Operation[] = Object.entries(spec.paths as Record<string, Schema>)
  .filter(([path]) => path.startsWith('/v1/'))
  .flatMap(([path, item]) =>
    ['get', 'post', 'patch', 'delete']
      .filter((method) => item[method])
      .map((method) => {
        const op = item[method] as Schema;
        return {
          id: op.operationId as string,
          method: method.toUpperCase(),
          path,
          parameters: [
            ...((item.parameters ?? []) as Schema[]),
            ...((op.parameters ?? []) as Schema[]),
          ].map(resolve),
          body: op.requestBody
            ? resolve(op.requestBody.content['application/json'].schema)
            : undefined,
          statuses: new Set(Object.keys(op.responses as object).map(Number)),
        };
      }),
  );

/**
 * Requests per operation and kind: at least 2,400 in a run over all three kinds, new ones each
 * run (fast-check seeds at random, so runs add up); `FUZZ_RUNS=<per operation and kind>` for a
 * deeper run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? Math.ceil(2_400 / (3 * operations.length)));

interface FuzzRequest {
  path: string;
  query: Record<string, unknown>;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
}

function requestArbitrary(op: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams: Record<string, fc.Arbitrary<unknown>> = {};
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.parameters) {
    if (p.in === 'path')
      pathParams[p.name] = fc.oneof(
        fc.stringMatching(/^(user|pol|log|exp|key)_[0-9a-z]{26}$/),
        fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s !== '.' && s !== '..'),
      );
    if (p.in === 'query' && p.name !== 'cursor') query[p.name] = validArbitrary(spec, p.schema);
  }
  const optionalQuery = Object.keys(query);
  return fc
    .record({
      params: fc.record(pathParams),
      query: fc.record(query, { requiredKeys: [] }),
      body: op.body ? validArbitrary(spec, op.body) : fc.constant(undefined),
    })
    .map(({ params, query: q, body }) => ({
      path: op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        encodeURIComponent(String(params[name])),
      ),
      query: Object.fromEntries(Object.entries(q).filter(([k]) => optionalQuery.includes(k))),
      ...(body === undefined ? {} : { body }),
    }));
}

type Mutation = {
  kind: 'extra' | 'missing' | 'wrong-type' | 'hostile' | 'malformed' | 'content-type' | 'bad-limit';
  field?: string;
};

function invalidArbitrary(
  op: Operation,
  kinds: 'strict' | 'hostile',
): fc.Arbitrary<{ request: FuzzRequest; mutation: Mutation }> {
  const base = requestArbitrary(op);
  const body = op.body;
  const properties = Object.keys((body?.properties ?? {}) as object);
  const required = (body?.required ?? []) as string[];
  const hasLimit = op.parameters.some((p) => p.name === 'limit' && p.in === 'query');
  const mutations: fc.Arbitrary<Mutation>[] = [];
  if (kinds === 'hostile') {
    // Attack strings and odd values in every body field, or in the query when there is no body.
    mutations.push(
      properties.length
        ? fc.constantFrom(...properties).map((field): Mutation => ({ kind: 'hostile', field }))
        : fc.constant<Mutation>({ kind: 'hostile' }),
    );
  } else {
    if (body) {
      mutations.push(
        fc.constant<Mutation>({ kind: 'extra' }),
        fc.constant<Mutation>({ kind: 'malformed' }),
        fc.constant<Mutation>({ kind: 'content-type' }),
      );
      if (required.length)
        mutations.push(
          fc.constantFrom(...required).map((field): Mutation => ({ kind: 'missing', field })),
        );
      if (properties.length)
        mutations.push(
          fc.constantFrom(...properties).map((field): Mutation => ({ kind: 'wrong-type', field })),
        );
    }
    if (hasLimit || mutations.length === 0)
      mutations.push(fc.constant<Mutation>({ kind: 'bad-limit' }));
  }
  return fc
    .tuple(base, fc.oneof(...mutations), hostileValue)
    .map(([request, mutation, hostile]) => {
      const b = { ...((request.body ?? {}) as Record<string, unknown>) };
      const fieldSchema = mutation.field
        ? resolve(((body?.properties ?? {}) as Record<string, Schema>)[mutation.field] ?? {})
        : {};
      switch (mutation.kind) {
        case 'extra':
          return { request: { ...request, body: { ...b, unexpectedField: 1 } }, mutation };
        case 'missing':
          delete b[mutation.field as string];
          return { request: { ...request, body: b }, mutation };
        case 'wrong-type': {
          // A value of a JSON type the field does not accept (`oneOf` alternatives included).
          const wrong = wrongTypeValues(spec, fieldSchema)[0];
          return {
            request: { ...request, body: { ...b, [mutation.field as string]: wrong } },
            mutation,
          };
        }
        case 'hostile':
          return mutation.field
            ? { request: { ...request, body: { ...b, [mutation.field]: hostile } }, mutation }
            : { request: { ...request, query: { ...request.query, q: hostile } }, mutation };
        case 'malformed':
          return {
            request: { ...request, rawBody: `${JSON.stringify(b).slice(0, -1)},` },
            mutation,
          };
        case 'content-type':
          return {
            request: { ...request, rawBody: JSON.stringify(b), contentType: 'text/plain' },
            mutation,
          };
        default:
          return {
            request: { ...request, query: { ...request.query, limit: hasLimit ? 100_000 : 'x' } },
            mutation,
          };
      }
    });
}

function toQueryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    params.set(
      key,
      Array.isArray(value)
        ? value.join(',')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value),
    );
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

describe('fuzzing every operation from the spec', () => {
  let server: TestServer;
  let sent = 0;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
    console.log(`fuzz: ${sent} requests to ${operations.length} operations`);
  });

  async function send(op: Operation, request: FuzzRequest): Promise<Response> {
    sent++;
    const hasBody = request.rawBody !== undefined || request.body !== undefined;
    return fetch(`${server.url}${request.path}${toQueryString(request.query)}`, {
      method: op.method,
      headers: {
        authorization: `Bearer ${server.rootKey}`,
        ...(hasBody ? { 'content-type': request.contentType ?? 'application/json' } : {}),
      },
      ...(hasBody ? { body: request.rawBody ?? JSON.stringify(request.body) } : {}),
    });
  }

  async function snapshot(): Promise<string> {
    const rows = await server.db.query<{ t: string; n: number; sum: string }>(
      `SELECT 'users' AS t, count(*)::int AS n, coalesce(md5(string_agg(u::text, ',' ORDER BY id)), '') AS sum FROM users u
       UNION ALL SELECT 'policies', count(*)::int, coalesce(md5(string_agg(p::text, ',' ORDER BY id)), '') FROM policies p
       UNION ALL SELECT 'api_keys', count(*)::int, coalesce(md5(string_agg(k::text, ',' ORDER BY id)), '') FROM api_keys k
       UNION ALL SELECT 'log_entries', count(*)::int, coalesce(md5(string_agg(l.id, ',' ORDER BY id)), '') FROM log_entries l
       UNION ALL SELECT 'exports', count(*)::int, coalesce(md5(string_agg(e::text, ',' ORDER BY id)), '') FROM exports e`,
    );
    return JSON.stringify(rows);
  }

  /** Never a 5xx, and a status the spec lists for the operation. */
  async function expectListedStatus(op: (typeof operations)[number], res: Response): Promise<void> {
    const text = await res.text();
    expect(res.status, `${op.id} ${text}`).toBeLessThan(500);
    expect(op.statuses.has(res.status), `${op.id}: ${res.status} is not listed (${text})`).toBe(
      true,
    );
  }

  it(
    'answers valid requests with a listed status, never a 5xx, always with rate-limit headers',
    async () => {
      for (const op of operations) {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(op), async (request) => {
            const res = await send(op, request);
            await expectListedStatus(op, res);
            expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
          }),
          { numRuns: RUNS },
        );
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'answers attack strings and odd values in every field with a listed status, never a 5xx',
    async () => {
      for (const op of operations) {
        await fc.assert(
          fc.asyncProperty(invalidArbitrary(op, 'hostile'), async ({ request }) => {
            const res = await send(op, request);
            await expectListedStatus(op, res);
          }),
          { numRuns: RUNS },
        );
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'rejects invalid requests with 400 (415 for the content type) and changes nothing',
    async () => {
      await server.worker.stop(); // the exports of the previous tests must not move under the snapshot
      const before = await snapshot();
      for (const op of operations) {
        await fc.assert(
          fc.asyncProperty(invalidArbitrary(op, 'strict'), async ({ request, mutation }) => {
            const res = await send(op, request);
            const text = await res.text();
            expect(res.status, `${op.id} ${mutation.kind} ${text}`).toBeLessThan(500);
            if (mutation.kind === 'content-type') {
              expect(res.status, `${op.id} ${text}`).toBe(415);
              return;
            }
            expect(res.status, `${op.id} ${mutation.kind} ${mutation.field ?? ''}: ${text}`).toBe(
              400,
            );
            const body = JSON.parse(text) as { error: { code: string; details?: unknown[] } };
            expect(body.error.code).toBe('invalid_request');
            expect(body.error.details?.length ?? 0).toBeGreaterThan(0);
          }),
          { numRuns: RUNS },
        );
      }
      expect(await snapshot()).toBe(before);
    },
    FUZZ_TIMEOUT,
  );

  it(
    'refuses every wrong JSON type in every field, hostile keys, deep nesting and loose query numbers, with 400 naming the field',
    async () => {
      await server.worker.stop();
      const before = await snapshot();
      const failures: string[] = [];
      let cases = 0;
      const expectRefused = async (
        op: Operation,
        request: FuzzRequest,
        field: string,
        what: string,
      ) => {
        cases++;
        const res = await send(op, request);
        const text = await res.text();
        const details =
          res.status === 400
            ? ((JSON.parse(text) as { error: { details?: { field: string }[] } }).error.details ??
              [])
            : [];
        const named = details.some(
          (d) =>
            d.field === field || d.field.startsWith(`${field}.`) || d.field.startsWith(`${field}[`),
        );
        if (res.status !== 400 || !named)
          failures.push(`${op.id} ${field} = ${what}: ${res.status} ${text.slice(0, 200)}`);
      };
      for (const op of operations) {
        const [base] = fc.sample(requestArbitrary(op), { numRuns: 1, seed: 42 });
        if (!base) continue;
        for (const p of op.parameters.filter((p) => p.in === 'query')) {
          const type = resolve(p.schema).type;
          const loose =
            type === 'integer'
              ? ['0x10', '1e1', '10.0', '+10', ' 10', '-0', '']
              : type === 'boolean'
                ? ['1', '0', 'yes', 'TRUE', '']
                : [];
          for (const value of loose)
            await expectRefused(
              op,
              { ...base, query: { ...base.query, [p.name]: value } },
              `query.${p.name}`,
              JSON.stringify(value),
            );
        }
        if (!op.body) continue;
        const body = (base.body ?? {}) as Record<string, unknown>;
        for (const key of HOSTILE_KEYS) {
          const rawBody = JSON.stringify({ ...body, [PLACEHOLDER]: {} }).replace(PLACEHOLDER, key);
          await expectRefused(op, { ...base, rawBody }, `body.${key}`, key);
        }
        for (const { path, schema } of bodyFields(spec, op.body)) {
          for (const wrong of wrongTypeValues(spec, schema))
            await expectRefused(
              op,
              { ...base, body: setAt(body, path, wrong) },
              `body.${path}`,
              JSON.stringify(wrong),
            );
          if (resolve(schema).type !== 'object') continue;
          for (const key of HOSTILE_KEYS) {
            const rawBody = JSON.stringify(setAt(body, path, { [PLACEHOLDER]: { x: 1 } })).replace(
              PLACEHOLDER,
              key,
            );
            await expectRefused(op, { ...base, rawBody }, `body.${path}.${key}`, key);
          }
          const deep = setAt(body, path, JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`));
          await expectRefused(op, { ...base, body: deep }, `body.${path}`, 'nested 40 deep');
        }
      }
      expect(failures).toEqual([]);
      expect(cases).toBeGreaterThan(300);
      expect(await snapshot()).toBe(before);
    },
    FUZZ_TIMEOUT,
  );
});
