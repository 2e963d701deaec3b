import { describe, expect, it } from 'vitest';
import { attributeConditionProblems, PolicyIndex } from '../src/index.js';
import type {
  AccessRequest,
  AttributeOperator,
  PolicyConditions,
  PolicyDefinition,
} from '../src/types.js';

let n = 0;
function policy(p: Partial<PolicyDefinition>): PolicyDefinition {
  n++;
  return {
    id: `pol_${String(n).padStart(26, '0')}`,
    name: p.name ?? `p${n}`,
    effect: 'allow',
    principals: ['*'],
    actions: ['*'],
    resources: ['*'],
    ...p,
  };
}

const base: AccessRequest = { principal: 'user:42', action: 'docs:update', resource: 'docs/1' };

/** Whether one allow policy with `attributes: {[path]: operator}` allows the request. */
function holds(
  path: string,
  operator: AttributeOperator,
  request: Partial<AccessRequest> = {},
): boolean {
  const index = new PolicyIndex([policy({ conditions: { attributes: { [path]: operator } } })]);
  return index.evaluate({ ...base, ...request }).allowed;
}

const resource = (attributes: Record<string, unknown>) => ({
  attributes: { resource: attributes },
});

describe('attribute conditions: operators', () => {
  it('equals holds only for the same value of the same JSON type', () => {
    expect(holds('resource.status', { equals: 'archived' }, resource({ status: 'archived' }))).toBe(
      true,
    );
    expect(holds('resource.status', { equals: 'archived' }, resource({ status: 'draft' }))).toBe(
      false,
    );
    expect(holds('resource.n', { equals: 3 }, resource({ n: 3 }))).toBe(true);
    expect(holds('resource.n', { equals: 3 }, resource({ n: '3' }))).toBe(false);
    expect(holds('resource.n', { equals: '3' }, resource({ n: 3 }))).toBe(false);
    expect(holds('resource.b', { equals: true }, resource({ b: 'true' }))).toBe(false);
    expect(holds('resource.b', { equals: true }, resource({ b: true }))).toBe(true);
    expect(holds('resource.b', { equals: false }, resource({ b: 0 }))).toBe(false);
  });

  it('notEquals holds for another value or type, never for a missing attribute', () => {
    expect(holds('resource.n', { notEquals: 3 }, resource({ n: '3' }))).toBe(true);
    expect(holds('resource.n', { notEquals: 3 }, resource({ n: 3 }))).toBe(false);
    expect(holds('resource.n', { notEquals: 3 }, resource({}))).toBe(false);
    expect(holds('resource.n', { notEquals: 3 }, resource({ n: null }))).toBe(true);
  });

  it('in and notIn compare without converting; notIn needs the attribute', () => {
    const list = { in: ['sales', 'support', 7] };
    expect(holds('resource.d', list, resource({ d: 'support' }))).toBe(true);
    expect(holds('resource.d', list, resource({ d: 'legal' }))).toBe(false);
    expect(holds('resource.d', list, resource({ d: '7' }))).toBe(false);
    expect(holds('resource.d', list, resource({ d: 7 }))).toBe(true);
    expect(holds('resource.d', list, resource({}))).toBe(false);
    expect(holds('resource.d', { notIn: ['a', 'b'] }, resource({ d: 'c' }))).toBe(true);
    expect(holds('resource.d', { notIn: ['a', 'b'] }, resource({ d: 'a' }))).toBe(false);
    expect(holds('resource.d', { notIn: ['a', 'b'] }, resource({}))).toBe(false);
  });

  it('exists: true for a present attribute (null too), false for an absent one', () => {
    expect(holds('resource.x', { exists: true }, resource({ x: null }))).toBe(true);
    expect(holds('resource.x', { exists: true }, resource({}))).toBe(false);
    expect(holds('resource.x', { exists: false }, resource({}))).toBe(true);
    expect(holds('resource.x', { exists: false }, resource({ x: 0 }))).toBe(false);
    expect(holds('resource.x', { exists: false }, {})).toBe(true);
  });

  it('compares numbers with numbers, never with strings', () => {
    expect(holds('resource.n', { lessThan: 10 }, resource({ n: 9 }))).toBe(true);
    expect(holds('resource.n', { lessThan: 10 }, resource({ n: 10 }))).toBe(false);
    expect(holds('resource.n', { lessThanOrEqual: 10 }, resource({ n: 10 }))).toBe(true);
    expect(holds('resource.n', { greaterThan: 10 }, resource({ n: 11 }))).toBe(true);
    expect(holds('resource.n', { greaterThan: 10 }, resource({ n: 10 }))).toBe(false);
    expect(holds('resource.n', { greaterThanOrEqual: 10 }, resource({ n: 10 }))).toBe(true);
    expect(holds('resource.n', { lessThan: 10 }, resource({ n: '9' }))).toBe(false);
    expect(holds('resource.n', { greaterThan: 10 }, resource({ n: '11' }))).toBe(false);
    expect(holds('resource.n', { lessThan: 10 }, resource({}))).toBe(false);
  });

  it('compares ISO 8601 instants as instants, across offsets', () => {
    const op = { lessThan: '2026-11-25T21:00:00Z' };
    expect(holds('resource.at', op, resource({ at: '2026-11-25T21:30:00+01:00' }))).toBe(true);
    expect(holds('resource.at', op, resource({ at: '2026-11-25T21:30:00Z' }))).toBe(false);
    expect(holds('resource.at', op, resource({ at: '2026-11-25' }))).toBe(true);
    expect(holds('resource.at', op, resource({ at: 'yesterday' }))).toBe(false);
    expect(holds('resource.at', op, resource({ at: '2026-02-30' }))).toBe(false);
    expect(holds('resource.at', op, resource({ at: 1 }))).toBe(false);
    expect(
      holds(
        'resource.at',
        { greaterThanOrEqual: '2026-11-25T21:00:00Z' },
        resource({ at: '2026-11-25T22:00:00+01:00' }),
      ),
    ).toBe(true);
  });

  it('context.time reads the request time (now by default) as an instant', () => {
    const op = { greaterThan: '2026-01-01T00:00:00Z' };
    expect(holds('context.time', op, { context: { time: new Date('2026-06-01T00:00:00Z') } })).toBe(
      true,
    );
    expect(holds('context.time', op, { context: { time: new Date('2025-06-01T00:00:00Z') } })).toBe(
      false,
    );
    expect(holds('context.time', { exists: true })).toBe(true);
  });

  it('startsWith on strings only; contains on arrays only', () => {
    expect(holds('resource.path', { startsWith: 'docs/' }, resource({ path: 'docs/1' }))).toBe(
      true,
    );
    expect(holds('resource.path', { startsWith: 'docs/' }, resource({ path: 'x/docs/' }))).toBe(
      false,
    );
    expect(holds('resource.path', { startsWith: '1' }, resource({ path: 12 }))).toBe(false);
    expect(holds('resource.tags', { contains: 'pii' }, resource({ tags: ['a', 'pii'] }))).toBe(
      true,
    );
    expect(holds('resource.tags', { contains: 'pii' }, resource({ tags: 'pii' }))).toBe(false);
    expect(holds('resource.tags', { contains: 1 }, resource({ tags: ['1'] }))).toBe(false);
    expect(holds('resource.tags', { contains: 'pii' }, resource({}))).toBe(false);
  });

  it('reads nested paths, and every root', () => {
    const request = {
      attributes: {
        principal: { metadata: { department: 'sales' } },
        action: { soft: true },
      },
      context: { tenant: { id: 't1' } },
    };
    expect(holds('principal.metadata.department', { equals: 'sales' }, request)).toBe(true);
    expect(holds('action.soft', { equals: true }, request)).toBe(true);
    expect(holds('context.tenant.id', { equals: 't1' }, request)).toBe(true);
    expect(holds('context.ip', { equals: '10.0.0.1' }, { context: { ip: '10.0.0.1' } })).toBe(true);
  });
});

describe('attribute conditions: ${self}', () => {
  it('stands for the request principal id as a value', () => {
    const owner = { equals: '${self}' };
    expect(holds('resource.owner', owner, resource({ owner: '42' }))).toBe(true);
    expect(holds('resource.owner', owner, resource({ owner: '43' }))).toBe(false);
    expect(
      holds('resource.owners', { contains: '${self}' }, resource({ owners: ['1', '42'] })),
    ).toBe(true);
    expect(holds('resource.owner', { in: ['admin', '${self}'] }, resource({ owner: '42' }))).toBe(
      true,
    );
    expect(holds('resource.owner', { notEquals: '${self}' }, resource({ owner: '42' }))).toBe(
      false,
    );
  });

  it('is plain text in a request attribute: a request cannot claim ownership with it', () => {
    expect(holds('resource.owner', { equals: '${self}' }, resource({ owner: '${self}' }))).toBe(
      false,
    );
    expect(holds('resource.owner', { equals: 'alice' }, resource({ owner: '${self}' }))).toBe(
      false,
    );
  });
});

describe('attribute conditions: missing attributes and hostile paths', () => {
  it('never reads inherited keys: __proto__, constructor and toString are missing', () => {
    expect(holds('resource.constructor', { exists: true }, resource({}))).toBe(false);
    expect(holds('resource.toString', { exists: true }, resource({}))).toBe(false);
    const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    expect(holds('resource.polluted', { equals: 'yes' }, resource(hostile))).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not walk into arrays, strings or null', () => {
    expect(holds('resource.list.0', { exists: true }, resource({ list: ['a'] }))).toBe(false);
    expect(holds('resource.s.length', { exists: true }, resource({ s: 'abc' }))).toBe(false);
    expect(holds('resource.n.x', { exists: false }, resource({ n: null }))).toBe(true);
  });

  it('explains each condition and lists the missing paths', () => {
    const index = new PolicyIndex([
      policy({
        name: 'owner-only',
        conditions: {
          attributes: {
            'resource.owner': { equals: '${self}' },
            'resource.status': { notEquals: 'archived' },
          },
        },
      }),
    ]);
    const d = index.evaluate({ ...base, ...resource({ owner: '42' }), explain: true });
    expect(d.allowed).toBe(false);
    expect(d.explanation?.[0]?.conditions).toEqual({
      'attributes.resource.owner': true,
      'attributes.resource.status': false,
    });
    expect(d.missingContextKeys).toEqual(['resource.status']);
  });
});

describe('attribute conditions with ip, time and other policies', () => {
  it('all must hold together with ip and time (AND)', () => {
    const conditions: PolicyConditions = {
      ip: { allowlist: ['10.0.0.0/8'] },
      time: { notBefore: '2026-01-01T00:00:00Z' },
      attributes: { 'resource.status': { equals: 'open' } },
    };
    const index = new PolicyIndex([policy({ conditions })]);
    const ok = {
      ...base,
      ...resource({ status: 'open' }),
      context: { ip: '10.1.2.3', time: new Date('2026-06-01T00:00:00Z') },
    };
    expect(index.evaluate(ok).allowed).toBe(true);
    expect(index.evaluate({ ...ok, context: { ...ok.context, ip: '192.168.0.1' } }).allowed).toBe(
      false,
    );
    expect(
      index.evaluate({ ...ok, context: { ...ok.context, time: new Date('2025-01-01T00:00:00Z') } })
        .allowed,
    ).toBe(false);
    expect(index.evaluate({ ...ok, ...resource({ status: 'closed' }) }).allowed).toBe(false);
  });

  it('a deny with a holding attribute condition overrides an allow; one not holding does not', () => {
    const index = new PolicyIndex([
      policy({ name: 'allow-all' }),
      policy({
        name: 'archived-read-only',
        effect: 'deny',
        actions: ['docs:update'],
        conditions: { attributes: { 'resource.status': { equals: 'archived' } } },
      }),
    ]);
    const archived = index.evaluate({ ...base, ...resource({ status: 'archived' }) });
    expect(archived).toMatchObject({ allowed: false, decision: 'explicit_deny' });
    expect(archived.matchedPolicies.map((p) => p.name)).toEqual([
      'allow-all',
      'archived-read-only',
    ]);
    expect(index.evaluate({ ...base, ...resource({ status: 'open' }) })).toMatchObject({
      allowed: true,
      decision: 'allow',
    });
    // A deny whose attribute is missing does not hold: the allow decides.
    expect(index.evaluate(base).allowed).toBe(true);
  });

  it('says when the principal attributes are needed: only for policies the request matches', () => {
    const index = new PolicyIndex([
      policy({ actions: ['docs:read'] }),
      policy({
        actions: ['docs:update'],
        conditions: { attributes: { 'principal.metadata.department': { equals: 'sales' } } },
      }),
      policy({
        actions: ['docs:delete'],
        conditions: { attributes: { 'resource.owner': { equals: '${self}' } } },
      }),
    ]);
    expect(index.readsPrincipalAttributes({ ...base, action: 'docs:update' })).toBe(true);
    expect(index.readsPrincipalAttributes({ ...base, action: 'docs:read' })).toBe(false);
    expect(index.readsPrincipalAttributes({ ...base, action: 'docs:delete' })).toBe(false);
    expect(new PolicyIndex([policy({})]).readsPrincipalAttributes(base)).toBe(false);
  });
});

describe('attributeConditionProblems: validation with field paths', () => {
  const problems = (attributes: unknown) => attributeConditionProblems(attributes);

  it('accepts every operator with its value type', () => {
    expect(
      problems({
        'resource.a': { equals: 'x' },
        'resource.b': { notEquals: 3 },
        'resource.c': { in: ['a', 1, true] },
        'resource.d': { notIn: ['${self}'] },
        'resource.e': { exists: false },
        'resource.f': { lessThan: 10 },
        'resource.g': { lessThanOrEqual: '2026-11-25T21:00:00Z' },
        'resource.h': { greaterThan: -1.5 },
        'resource.i': { greaterThanOrEqual: '2026-11-25' },
        'resource.j': { startsWith: 'docs/' },
        'resource.k': { contains: '${self}' },
        'principal.metadata.department': { equals: 'sales' },
        'action.soft': { equals: true },
        'context.tenant': { exists: true },
      }),
    ).toEqual([]);
  });

  it('names each bad path, operator and value', () => {
    expect(
      problems({
        'subject.x': { equals: 1 },
        resource: { equals: 1 },
        'resource..x': { equals: 1 },
        'resource.__proto__.x': { equals: 1 },
        'resource.constructor': { exists: true },
        'resource.a.prototype': { exists: true },
        'resource.empty': {},
        'resource.two': { equals: 1, notEquals: 2 },
        'resource.unknown': { like: 'x' },
        'resource.type': { equals: { nested: 1 } },
        'resource.null': { equals: null },
        'resource.list': { in: [] },
        'resource.deep': { in: [[1]] },
        'resource.exists': { exists: 'yes' },
        'resource.cmp': { lessThan: 'soon' },
        'resource.cmpBool': { greaterThan: true },
        'resource.prefix': { startsWith: 1 },
        'resource.notObject': 'x',
      }).map((p) => p.field),
    ).toEqual([
      'conditions.attributes.subject.x',
      'conditions.attributes.resource',
      'conditions.attributes.resource..x',
      'conditions.attributes.resource.__proto__.x',
      'conditions.attributes.resource.constructor',
      'conditions.attributes.resource.a.prototype',
      'conditions.attributes.resource.empty',
      'conditions.attributes.resource.two',
      'conditions.attributes.resource.unknown',
      'conditions.attributes.resource.type.equals',
      'conditions.attributes.resource.null.equals',
      'conditions.attributes.resource.list.in',
      'conditions.attributes.resource.deep.in',
      'conditions.attributes.resource.exists.exists',
      'conditions.attributes.resource.cmp.lessThan',
      'conditions.attributes.resource.cmpBool.greaterThan',
      'conditions.attributes.resource.prefix.startsWith',
      'conditions.attributes.resource.notObject',
    ]);
  });

  it('bounds lists, strings and the number of paths', () => {
    const many = Array.from({ length: 101 }, (_, i) => i);
    expect(problems({ 'resource.x': { in: many } })[0]?.field).toBe(
      'conditions.attributes.resource.x.in',
    );
    expect(problems({ 'resource.x': { equals: 'y'.repeat(1025) } })[0]?.field).toBe(
      'conditions.attributes.resource.x.equals',
    );
    expect(problems({ [`resource.${'a'.repeat(300)}`]: { exists: true } })).toHaveLength(1);
    const paths = Object.fromEntries(
      Array.from({ length: 33 }, (_, i) => [`resource.a${i}`, { exists: true }]),
    );
    expect(problems(paths)).toEqual([
      { field: 'conditions.attributes', message: 'must have 1 to 32 attribute paths' },
    ]);
    expect(problems({})).toHaveLength(1);
    expect(problems(null)).toHaveLength(1);
    expect(
      attributeConditionProblems({ x: 1 }, 'draftPolicies[2].conditions.attributes')[0]?.field,
    ).toBe('draftPolicies[2].conditions.attributes.x');
  });
});
