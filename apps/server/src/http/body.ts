import express, { type Request, type RequestHandler, type Response } from 'express';
import { ApiError, type ErrorDetail } from './errors.js';
import { hasBody } from './unread-body.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A request body must be JSON: anything else is a 415 before it is read. */
export function requireJsonBody(req: Request): void {
  if (hasBody(req) && !req.is(JSON_TYPES))
    throw new ApiError('unsupported_media_type', 'Request bodies must be application/json.');
}

const parsers = new Map<number, RequestHandler>();

/** Reads and parses the JSON body, up to the operation's limit (413 beyond it); `undefined` if none. */
export async function readJsonBody(
  req: Request,
  res: Response,
  maxBytes: number,
): Promise<unknown> {
  let parse = parsers.get(maxBytes);
  if (!parse) {
    parse = express.json({ limit: maxBytes, type: JSON_TYPES });
    parsers.set(maxBytes, parse);
  }
  const parser = parse;
  await new Promise<void>((resolve, reject) =>
    parser(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
  );
  return req.body;
}

/** The body's top-level object or array is level 1; each nested one adds a level (docs/errors.md). */
const MAX_DEPTH = 32;
/** Keys that mean something to JavaScript objects: never data. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DETAILS = 20;
/** A surrogate without its pair: not a character, and not storable as PostgreSQL text or jsonb. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain an unpaired surrogate (invalid Unicode)';
  return undefined;
}

/** A value met while walking a body; its path is spelled out only if it is reported. */
interface Visit {
  value: unknown;
  parent: Visit | undefined;
  /** Index in the parent array, or key in the parent object. */
  step: number | string;
  depth: number;
}

/** Numbers, booleans and null hold nothing to report: not worth a visit. */
const mayViolate = (value: unknown) =>
  typeof value === 'string' || (value !== null && typeof value === 'object');

/** `body.entries[0].metadata.note`: the root, then each step from the top down. */
function pathOf(visit: Visit, root: string): string {
  const steps: (number | string)[] = [];
  for (let at: Visit = visit; at.parent; at = at.parent) steps.push(at.step);
  let path = root;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as number | string;
    path += typeof step === 'number' ? `[${step}]` : `.${step}`;
  }
  return path;
}

/**
 * Everything in a JSON value that no field may hold: U+0000 and unpaired surrogates (PostgreSQL
 * cannot store them), reserved keys, and nesting deeper than 32 levels. Walks with an explicit stack, so that a
 * hostile depth cannot exhaust the call stack, and stops below the depth limit. Every value of
 * an ingest batch passes here: paths are built only for what is reported.
 */
export function jsonViolations(value: unknown, root: string): ErrorDetail[] {
  const violations: ErrorDetail[] = [];
  const stack: Visit[] = [{ value, parent: undefined, step: 0, depth: 0 }];
  while (stack.length > 0 && violations.length < MAX_DETAILS) {
    const visit = stack.pop() as Visit;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) violations.push({ field: pathOf(visit, root), message: problem });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_DEPTH) {
      violations.push({
        field: pathOf(visit, root),
        message: `must not be nested more than ${MAX_DEPTH} levels deep`,
      });
      continue;
    }
    // Pushed in reverse, so that violations are reported in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        if (mayViolate(value[i]))
          stack.push({ value: value[i], parent: visit, step: i, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      if (RESERVED_KEYS.has(key))
        violations.push({
          field: `${pathOf(visit, root)}.${key}`,
          message: 'is a reserved key name',
        });
      else {
        const problem = textProblem(key);
        if (problem)
          violations.push({
            field: pathOf(visit, root),
            message: `has an invalid key: it ${problem}`,
          });
      }
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      if (!RESERVED_KEYS.has(key) && mayViolate((value as Record<string, unknown>)[key]))
        stack.push({
          value: (value as Record<string, unknown>)[key],
          parent: visit,
          step: key,
          depth: depth + 1,
        });
    }
  }
  return violations;
}
