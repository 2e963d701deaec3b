import { parseInstantMs } from './instant.js';
import { SELF } from './patterns.js';
import type { AttributeOperator, AttributeScalar, RequestAttributes } from './types.js';

export const ATTRIBUTE_ROOTS = ['principal', 'resource', 'action', 'context'] as const;
export type AttributeRoot = (typeof ATTRIBUTE_ROOTS)[number];

/** The bounds the spec states for `conditions.attributes`. */
export const ATTRIBUTE_LIMITS = {
  maxConditions: 32,
  maxPathLength: 256,
  maxListItems: 100,
  maxStringLength: 1024,
};

/** Segments that name an object's machinery, never data: refused in paths. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

type Comparison = 'lessThan' | 'lessThanOrEqual' | 'greaterThan' | 'greaterThanOrEqual';
const COMPARISONS: readonly Comparison[] = [
  'lessThan',
  'lessThanOrEqual',
  'greaterThan',
  'greaterThanOrEqual',
];
const OPERATORS = new Set<string>([
  'equals',
  'notEquals',
  'in',
  'notIn',
  'exists',
  ...COMPARISONS,
  'startsWith',
  'contains',
]);

export interface AttributeProblem {
  field: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function scalarProblem(value: unknown): string | undefined {
  if (typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : 'must be a finite number';
  if (typeof value === 'string')
    return value.length <= ATTRIBUTE_LIMITS.maxStringLength
      ? undefined
      : `must be at most ${ATTRIBUTE_LIMITS.maxStringLength} characters`;
  return 'must be a string, a number or a boolean';
}

function pathProblem(path: string): string | undefined {
  if (path.length > ATTRIBUTE_LIMITS.maxPathLength)
    return `must be at most ${ATTRIBUTE_LIMITS.maxPathLength} characters`;
  const [root, ...rest] = path.split('.');
  if (!ATTRIBUTE_ROOTS.includes(root as AttributeRoot) || rest.length === 0)
    return 'must start with principal., resource., action. or context.';
  if (rest.some((segment) => segment === '' || /\s/.test(segment)))
    return 'must not have empty segments or white space';
  if (rest.some((segment) => FORBIDDEN_SEGMENTS.has(segment)))
    return 'must not name __proto__, constructor or prototype';
  return undefined;
}

function operatorProblem(operator: string, value: unknown): string | undefined {
  switch (operator) {
    case 'equals':
    case 'notEquals':
    case 'contains':
      return scalarProblem(value);
    case 'in':
    case 'notIn': {
      if (
        !Array.isArray(value) ||
        value.length === 0 ||
        value.length > ATTRIBUTE_LIMITS.maxListItems
      )
        return `must be an array of 1 to ${ATTRIBUTE_LIMITS.maxListItems} strings, numbers or booleans`;
      const bad = value.findIndex((item) => scalarProblem(item) !== undefined);
      return bad < 0 ? undefined : `item ${bad} ${scalarProblem(value[bad])}`;
    }
    case 'exists':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'startsWith':
      return typeof value === 'string' ? scalarProblem(value) : 'must be a string';
    default:
      if (typeof value === 'number' && Number.isFinite(value)) return undefined;
      if (typeof value === 'string' && parseInstantMs(value) !== undefined) return undefined;
      return 'must be a number or an ISO 8601 instant';
  }
}

/**
 * What is wrong with a policy's `conditions.attributes`, each problem named
 * `<field>.<path>` (or `<field>` for the object itself). Pure: the server calls it when a
 * policy (or a draft) is written.
 */
export function attributeConditionProblems(
  attributes: unknown,
  field = 'conditions.attributes',
): AttributeProblem[] {
  if (!isObject(attributes)) return [{ field, message: 'must be an object' }];
  const entries = Object.entries(attributes);
  if (entries.length === 0 || entries.length > ATTRIBUTE_LIMITS.maxConditions)
    return [
      {
        field,
        message: `must have 1 to ${ATTRIBUTE_LIMITS.maxConditions} attribute paths`,
      },
    ];
  const problems: AttributeProblem[] = [];
  for (const [path, test] of entries) {
    const at = `${field}.${path}`;
    const badPath = pathProblem(path);
    if (badPath) {
      problems.push({ field: at, message: badPath });
      continue;
    }
    const keys = isObject(test) ? Object.keys(test) : [];
    if (!isObject(test) || keys.length !== 1) {
      problems.push({ field: at, message: 'must be an object with exactly one operator' });
      continue;
    }
    const operator = keys[0] as string;
    if (!OPERATORS.has(operator)) {
      problems.push({ field: at, message: `has an unknown operator: ${operator}` });
      continue;
    }
    const bad = operatorProblem(operator, test[operator]);
    if (bad) problems.push({ field: `${at}.${operator}`, message: bad });
  }
  return problems;
}

const MISSING = Symbol('missing');
type Found = unknown | typeof MISSING;

/** A compiled attribute condition: where to read, and the test of what is there. */
export interface CompiledAttribute {
  /** The path as written, e.g. `resource.status`. */
  path: string;
  root: AttributeRoot;
  segments: readonly string[];
  holds(value: Found, self: string): boolean;
}

/** A test of equality with `expected`, where `${self}` is the principal's id. */
function equalTo(expected: AttributeScalar): (value: Found, self: string) => boolean {
  return expected === SELF ? (value, self) => value === self : (value) => value === expected;
}

/** A test of membership; a `Set` compares like `===` for these scalars (no NaN among them). */
function memberOf(list: readonly AttributeScalar[]): (value: Found, self: string) => boolean {
  const members = new Set<unknown>(list.filter((item) => item !== SELF));
  return list.includes(SELF)
    ? (value, self) => members.has(value) || value === self
    : (value) => members.has(value);
}

/** The attribute as an instant in ms, when it is a string that parses as one. */
const instantOf = (value: unknown): number | undefined =>
  typeof value === 'string' ? parseInstantMs(value) : undefined;

function compare(operator: Comparison, bound: number | string): CompiledAttribute['holds'] {
  const test = {
    lessThan: (a: number, b: number) => a < b,
    lessThanOrEqual: (a: number, b: number) => a <= b,
    greaterThan: (a: number, b: number) => a > b,
    greaterThanOrEqual: (a: number, b: number) => a >= b,
  }[operator];
  if (typeof bound === 'number') return (value) => typeof value === 'number' && test(value, bound);
  const instant = parseInstantMs(bound) as number;
  return (value) => {
    const at = instantOf(value);
    return at !== undefined && test(at, instant);
  };
}

function compileTest(operator: AttributeOperator): CompiledAttribute['holds'] {
  if (operator.equals !== undefined) return equalTo(operator.equals);
  if (operator.notEquals !== undefined) {
    const equal = equalTo(operator.notEquals);
    return (value, self) => value !== MISSING && !equal(value, self);
  }
  if (operator.in !== undefined) return memberOf(operator.in);
  if (operator.notIn !== undefined) {
    const member = memberOf(operator.notIn);
    return (value, self) => value !== MISSING && !member(value, self);
  }
  if (operator.exists !== undefined) {
    const present = operator.exists;
    return (value) => (value !== MISSING) === present;
  }
  for (const comparison of COMPARISONS) {
    const bound = operator[comparison];
    if (bound !== undefined) return compare(comparison, bound);
  }
  if (operator.startsWith !== undefined) {
    const prefix = operator.startsWith;
    return (value, self) =>
      typeof value === 'string' && value.startsWith(prefix === SELF ? self : prefix);
  }
  if (operator.contains !== undefined) {
    const equal = equalTo(operator.contains);
    return (value, self) => Array.isArray(value) && value.some((element) => equal(element, self));
  }
  throw new Error('An attribute condition has no operator');
}

/** Compiles conditions that `attributeConditionProblems` accepted. */
export function compileAttributes(
  attributes: Record<string, AttributeOperator>,
): CompiledAttribute[] {
  return Object.entries(attributes).map(([path, operator]) => {
    const [root, ...segments] = path.split('.');
    return { path, root: root as AttributeRoot, segments, holds: compileTest(operator) };
  });
}

/** What attribute paths read, for one request: its attributes and context. */
export interface AttributeSources {
  attributes?: RequestAttributes | undefined;
  context?: Record<string, unknown> | undefined;
  /** The decision's instant, which `context.time` reads (now unless the request gave one). */
  time: number;
}

/**
 * The value at the path: own keys of plain objects only (never inherited ones, never into
 * arrays), so no path reaches an object's machinery. A `Date` reads as its ISO text.
 */
export function readAttribute(sources: AttributeSources, condition: CompiledAttribute): Found {
  const { root, segments } = condition;
  if (root === 'context' && segments.length === 1 && segments[0] === 'time')
    return new Date(sources.time).toISOString();
  let value: unknown = root === 'context' ? sources.context : sources.attributes?.[root];
  for (const segment of segments) {
    if (!isObject(value) || !Object.hasOwn(value, segment)) return MISSING;
    value = value[segment];
  }
  return value instanceof Date ? value.toISOString() : value;
}

export const isMissing = (value: Found): boolean => value === MISSING;
