import express, { type Request, type RequestHandler, type Response } from 'express';
import { JsonTooDeepError, JsonTooManyKeysError } from '../lib/json-depth-guard.js';
import { Pacer } from '../lib/pacer.js';
import { JsonSyntaxError, parseJsonInSlices } from '../lib/parse-json-in-slices.js';
import { ApiError, type ErrorDetail, NotAContainerError } from './errors.js';
import { hasBody } from './unread-body.js';

const JSON_TYPES = ['application/json', 'application/*+json'];

/** A request body must be JSON: anything else is refused before it is read (415 unless `code` says otherwise). */
export function requireJsonBody(
  req: Request,
  code: 'unsupported_media_type' | 'invalid_request' = 'unsupported_media_type',
): void {
  if (hasBody(req) && !req.is(JSON_TYPES))
    throw new ApiError(
      code,
      'Request bodies must be application/json.',
      code === 'invalid_request'
        ? [{ field: 'body', message: 'must be sent as application/json' }]
        : undefined,
    );
}

/** The body's top-level object or array is level 1; each nested one adds a level (docs/errors.md). */
const MAX_DEPTH = 32;
/**
 * The most keys one object of a body may have: more than any valid body holds (free-form
 * metadata is at most 16 KiB serialized, so under 2,800 keys).
 */
const MAX_KEYS = 4096;

const readers = new Map<number, RequestHandler>();
/** RFC 8259: JSON is exchanged in UTF-8 (older texts allowed UTF-16 and UTF-32). */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;
/** JSON is UTF-8 (RFC 8259 §8.1): the charsets a body may name, lowercased, alias included. */
const UTF8 = new Set(['utf-8', 'utf8']);
/** The first character of a JSON text that is not its whitespace. */
const firstOf = (text: string) => /[^ \t\n\r]/.exec(text)?.[0];

/**
 * What the decompressor throws for a body that is not what its `Content-Encoding` says (bad data,
 * cut short, empty): body-parser passes it on as it is, without the `type` its own errors have.
 */
function undecompressible(req: Request, error: unknown): ApiError | undefined {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || (error as { type?: unknown }).type !== undefined) return undefined;
  return new ApiError(
    'invalid_request',
    `The request body could not be decompressed as its Content-Encoding (${encoding}) says.`,
    [{ field: 'body', message: `must be valid ${encoding} data` }],
  );
}

/** Reported as body-parser reports malformed JSON (see the error handler). */
const malformed = (error: Error) => Object.assign(error, { type: 'entity.parse.failed' });

/**
 * Reads and parses the JSON body, up to the operation's limit (413 beyond it); `undefined` if
 * none. Only objects and arrays, and an empty body is `{}`, as `express.json` had it; the text
 * is parsed in slices that let other requests run (a 10 MiB body is seconds of parsing).
 */
export async function readJsonBody(
  req: Request,
  res: Response,
  maxBytes: number,
): Promise<unknown> {
  const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8.has(charset))
    throw Object.assign(new Error(`unsupported charset "${charset}"`), {
      type: 'charset.unsupported',
    });
  let read = readers.get(maxBytes);
  if (!read) {
    read = express.text({ limit: maxBytes, type: JSON_TYPES, defaultCharset: 'utf-8' });
    readers.set(maxBytes, read);
  }
  const reader = read;
  await new Promise<void>((resolve, reject) =>
    reader(req, res, (error?: unknown) =>
      error ? reject(undecompressible(req, error) ?? error) : resolve(),
    ),
  );
  const text = req.body as string | undefined;
  if (text === undefined) return undefined;
  if (text.length === 0) return {};
  const first = firstOf(text);
  if (first !== '{' && first !== '[')
    throw malformed(new NotAContainerError('A JSON body must be an object or an array.'));
  try {
    req.body = await parseJsonInSlices(text, MAX_DEPTH, MAX_KEYS);
  } catch (error) {
    if (error instanceof JsonTooDeepError)
      throw new ApiError('invalid_request', 'The request is invalid.', [
        tooDeep(pathFrom('body', error.path)),
      ]);
    if (error instanceof JsonTooManyKeysError)
      throw new ApiError('invalid_request', 'The request is invalid.', [
        {
          field: pathFrom('body', error.path),
          message: `must not have more than ${MAX_KEYS} keys`,
        },
      ]);
    throw error instanceof JsonSyntaxError ? malformed(error) : error;
  }
  return req.body;
}

/** Keys that mean something to JavaScript objects: never data. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DETAILS = 20;
/** Keys or items walked between two looks at the clock. */
const STEPS_PER_PACE = 1024;
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

/** A number JSON text can spell but no double holds (`1e400`): it would be stored as null. */
const outOfRange = (value: unknown) => typeof value === 'number' && !Number.isFinite(value);

/** Booleans, null and numbers in range hold nothing to report: not worth a visit. */
const mayViolate = (value: unknown) =>
  typeof value === 'string' || outOfRange(value) || (value !== null && typeof value === 'object');

/** `body.entries[0].metadata.note`: the root, then each step from the top down. */
const pathFrom = (root: string, steps: readonly (number | string)[]) =>
  steps.reduce<string>(
    (path, step) => path + (typeof step === 'number' ? `[${step}]` : `.${step}`),
    root,
  );

function pathOf(visit: Visit, root: string): string {
  const steps: (number | string)[] = [];
  for (let at: Visit = visit; at.parent; at = at.parent) steps.push(at.step);
  return pathFrom(root, steps.reverse());
}

const tooDeep = (field: string): ErrorDetail => ({
  field,
  message: `must not be nested more than ${MAX_DEPTH} levels deep`,
});

/**
 * Everything in a JSON value that no field may hold: U+0000 and unpaired surrogates (PostgreSQL
 * cannot store them), numbers beyond a double's range, reserved keys, and nesting deeper than
 * 32 levels. Walks with an explicit stack, so that a hostile depth cannot exhaust the call
 * stack, and stops below the depth limit. Every value of
 * an ingest batch passes here: paths are built only for what is reported, and the walk lets
 * other requests run now and then.
 */
export async function jsonViolations(value: unknown, root: string): Promise<ErrorDetail[]> {
  const violations: ErrorDetail[] = [];
  const stack: Visit[] = [{ value, parent: undefined, step: 0, depth: 0 }];
  const pacer = new Pacer();
  while (stack.length > 0 && violations.length < MAX_DETAILS) {
    const visit = stack.pop() as Visit;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) violations.push({ field: pathOf(visit, root), message: problem });
      continue;
    }
    if (outOfRange(value)) {
      violations.push({
        field: pathOf(visit, root),
        message: `must be a number within ±${Number.MAX_VALUE} (send a larger one as a string)`,
      });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_DEPTH) {
      violations.push(tooDeep(pathOf(visit, root)));
      continue;
    }
    // Pushed in reverse, so that violations are reported in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        if (i % STEPS_PER_PACE === 0) await pacer.pace();
        if (mayViolate(value[i]))
          stack.push({ value: value[i], parent: visit, step: i, depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      if (i % STEPS_PER_PACE === 0) await pacer.pace();
      const key = keys[i] as string;
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
