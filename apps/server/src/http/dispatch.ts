import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '../lib/errors.js';
import { asOneRequest } from '../lib/state-versions.js';
import type { RateLimitStore } from '../rate-limit/store.js';
import type { authenticator, authorizer } from './auth.js';
import { jsonViolations, readJsonBody, requireJsonBody } from './body.js';
import type { BodyBudget } from './body-budget.js';
import type { Authenticated, Handlers } from './context.js';
import { ApiError, bodyTooLarge, fromDomainError } from './errors.js';
import type { Operation, Router } from './operations.js';
import { ANONYMOUS_LIMIT, enforceRateLimit } from './rate-limit.js';
import { closeIfBodyUnread } from './unread-body.js';
import type { SpecValidator, ValidInput } from './validation.js';

export interface DispatchDeps {
  router: Router;
  operations: Operation[];
  validator: SpecValidator;
  handlers: Handlers;
  authenticate: ReturnType<typeof authenticator>;
  authorize: ReturnType<typeof authorizer>;
  rateLimits: RateLimitStore;
  idempotency: IdempotencyStep;
  /** Check every JSON response against the spec (tests). */
  validateResponses: boolean;
  /** True while free disk space is below `SECADMIN_MIN_FREE_DISK_MB`: writes get 503. */
  diskLow: () => boolean;
  /** Bounds the bytes of bodies in flight, per principal and for the process. */
  bodies: BodyBudget;
}

/** One write run once per `Idempotency-Key`: the composition root plugs it in. */
export interface IdempotencyStep {
  /** The request's `Idempotency-Key`, if it sent one; throws (400) when it is not a valid one. */
  keyOf(req: Request): string | undefined;
  /** The request as sent (method, path and parsed body), to tell a replay from another request. */
  fingerprint(method: string, path: string, body: unknown): Promise<string>;
  /**
   * Runs `handle` once for the key and answers with its response, or with the one kept for
   * the key. `handle` throws what the client should see as an `ApiError`.
   */
  run(
    request: { keyId: string; callerSecret: string; idempotencyKey: string; fingerprint: string },
    res: Response,
    handle: () => Promise<void>,
  ): Promise<void>;
}

const EXPECTS_CONTINUE = /^\s*100-continue\s*$/i;

/** A declared length past the operation's limit is refused from the header, the body unread. */
function refuseDeclaredTooLarge(req: Request, maxBytes: number): void {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw bodyTooLarge(maxBytes);
}

/** Free space is looked at every second; a client retrying sooner would only be refused again. */
const DISK_LOW_RETRY_AFTER_S = 5;

interface Served {
  operation: Operation;
  validate: (input: ValidInput) => ValidInput;
  respondsAs: ((status: number, body: unknown) => { field: string; message: string }[]) | undefined;
  /** Where the handler's input came from, for the field names of its `Invalid` errors. */
  inputLocation: 'body' | 'query';
  // biome-ignore lint/suspicious/noExplicitAny: each entry's handler is typed by its operation in `Handlers`
  handler: ((ctx: any) => Promise<void> | void) & { prepare?: (ctx: any) => Promise<unknown> };
}

/**
 * Serves every operation of the spec, in this order: route → key (401, 429) → policy (403)
 * → disk low for a write (503) → `Idempotency-Key` of a write (400) → media type (415) →
 * declared length (413) → room for the body in flight (429 for the principal, 503 for the
 * process) → `100 Continue` → body (413, malformed JSON, not decompressible) → reserved keys,
 * depth, NUL → schema (400) → the handler's work before any transaction (`preparedFirst`) →
 * idempotency (replay, 409, 422, 429) → handler (under an `Idempotency-Key`, in one
 * transaction with the kept response). Nothing is read from the body
 * before the key and its rights are known.
 */
export function dispatcher(deps: DispatchDeps): RequestHandler {
  const served = new Map<Operation, Served>(
    deps.operations.map((operation) => [
      operation,
      {
        operation,
        // Compiled on the operation's first request: compiling every one held the start.
        validate: (input) => deps.validator.requestValidator(operation)(input),
        respondsAs: deps.validateResponses
          ? deps.validator.responseValidator(operation)
          : undefined,
        handler: deps.handlers[operation.id],
        inputLocation: operation.spec.requestBody ? 'body' : 'query',
      },
    ]),
  );

  const serve = async (req: Request, res: Response) => {
    const match = deps.router.match(req.method, req.path);
    if (!match) {
      if (deps.router.needsKey(req.path)) await deps.authenticate(req, res);
      const allowed = deps.router.allowedMethods(req.path);
      // A method the path serves, yet no match: a parameter that does not decode names nothing.
      if (allowed.length === 0 || allowed.includes(req.method))
        throw new ApiError('not_found', `No route ${req.method} ${req.path}.`);
      res.setHeader('Allow', allowed.join(', '));
      throw new ApiError(
        'method_not_allowed',
        `${req.method} is not served at ${req.path}; use ${allowed.join(', ')}.`,
      );
    }
    const { operation, params } = match;
    res.locals.operationId = operation.id;
    res.locals.route = operation.path;
    const { access } = operation;
    let auth: Authenticated | undefined;
    /** The caller's API-key secret: it seals the response kept for its `Idempotency-Key`. */
    let callerSecret = '';
    if (access === 'token')
      await enforceRateLimit(deps.rateLimits, res, `ip:${req.ip}`, ANONYMOUS_LIMIT);
    else if (access !== 'public') {
      const { secret, ...authenticated } = await deps.authenticate(req, res);
      auth = authenticated;
      callerSecret = secret;
      res.locals.keyId = auth.key.id;
      await deps.authorize(req, auth, access, params);
    }
    if (operation.writes && deps.diskLow())
      throw new ApiError(
        'unavailable',
        'The server is low on disk space and refuses writes until space is freed; reads go on.',
        undefined,
        DISK_LOW_RETRY_AFTER_S,
      );
    const idempotencyKey =
      auth && req.method === 'POST' && operation.writes && operation.idempotent
        ? deps.idempotency.keyOf(req)
        : undefined;
    let body: unknown;
    // Only a key's request to an operation that takes a body has it read (no operation takes one
    // without a key); any other body is left unread, charged to no bound, and its connection
    // closes once the answer is sent.
    if (auth && operation.spec.requestBody) {
      requireJsonBody(
        req,
        operation.nonJsonBody === 'invalid_request' ? 'invalid_request' : 'unsupported_media_type',
      );
      refuseDeclaredTooLarge(req, operation.maxBodyBytes);
      // Right before the read, in the same turn: the budget counts a chunked body as it arrives.
      // All keys of a principal share one bound: minting keys buys no more room.
      deps.bodies.admit(req, `principal:${auth.key.principal}`);
      // Only now that it will be read: a refused request got its final answer instead.
      if (EXPECTS_CONTINUE.test(req.headers.expect ?? '')) res.writeContinue();
      body = await readJsonBody(req, res, operation.maxBodyBytes);
    } else closeIfBodyUnread(req, res);
    const query = req.query as Record<string, unknown>;
    const violations = [
      ...(await jsonViolations(body, 'body')),
      ...(await jsonViolations(query, 'query')),
      ...(await jsonViolations(params, 'path')),
    ];
    if (violations.length > 0)
      throw new ApiError('invalid_request', 'The request is invalid.', violations);
    // Fingerprinted as sent, once its depth is known to be bounded: validation normalizes the
    // body in place and fills in defaults.
    const idempotent =
      auth && idempotencyKey !== undefined
        ? {
            keyId: auth.key.id,
            principal: auth.key.principal,
            callerSecret,
            idempotencyKey,
            fingerprint: await deps.idempotency.fingerprint(req.method, req.path, body),
          }
        : undefined;
    const entry = served.get(operation) as Served;
    const input = entry.validate({ params, query, body });
    if (entry.respondsAs) checkResponses(res, entry.respondsAs);
    const ctx = { ...input, ...auth, requestId: res.locals.requestId, req, res };
    const prepared = entry.handler.prepare
      ? { value: await entry.handler.prepare(ctx) }
      : undefined;
    const handle = async () => {
      try {
        await entry.handler({ ...ctx, prepared });
      } catch (error) {
        throw error instanceof DomainError ? fromDomainError(error, entry.inputLocation) : error;
      }
    };
    if (idempotent) await deps.idempotency.run(idempotent, res, handle);
    else await handle();
  };
  // One request, one set of state versions: read when the key is checked, kept to the end.
  return (req, res) => asOneRequest(() => serve(req, res));
}

/** Tests: a JSON response the spec does not describe is a failure, not a quiet drift. */
function checkResponses(
  res: Response,
  respondsAs: (status: number, body: unknown) => { field: string; message: string }[],
): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const problems = respondsAs(res.statusCode, body);
    if (problems.length > 0)
      throw new Error(`response does not match the spec: ${JSON.stringify(problems)}`);
    return json(body);
  };
}
