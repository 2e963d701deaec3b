import type { ErrorCode } from '@secadmin/api-types';
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import {
  Conflict,
  DomainError,
  Forbidden,
  Gone,
  IdempotencyKeyReused,
  Invalid,
  NotFound,
  PreconditionFailed,
  type ScimErrorType,
  Throttled,
  Unavailable,
} from '../lib/errors.js';
import { JsonSyntaxError } from '../lib/parse-json-in-slices.js';
import { sendJson } from './respond.js';
import { closeIfBodyUnread } from './unread-body.js';

export interface ErrorDetail {
  field: string;
  message: string;
  /** Where in the field's text the problem is (1-based, in code points): a search query's. */
  position?: number;
}

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

/** An error meant for the client: its code, message and details are sent as they are. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** For a 429: when to try again. */
    readonly retryAfterSeconds?: number,
    /** SCIM's kind of 400 (`/scim/v2` answers in the SCIM error schema). */
    readonly scimType?: ScimErrorType,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/**
 * A domain error as the client sees it. `location` is where the operation's input came from
 * (`body` or `query`): a problem with the input's `from` is one with `query.from` on a list.
 */
export function fromDomainError(error: DomainError, location: 'body' | 'query'): ApiError {
  if (error instanceof Invalid)
    return new ApiError(
      'invalid_request',
      error.message,
      error.problems.map(({ field, message, position }) => ({
        field: `${location}.${field}`,
        message,
        ...(position === undefined ? {} : { position }),
      })),
      undefined,
      error.scimType,
    );
  if (error instanceof NotFound) return new ApiError('not_found', error.message);
  if (error instanceof Conflict) return new ApiError('conflict', error.message);
  if (error instanceof Forbidden) return new ApiError('forbidden', error.message);
  if (error instanceof Gone) return new ApiError('gone', error.message);
  if (error instanceof PreconditionFailed)
    return new ApiError('precondition_failed', error.message);
  if (error instanceof IdempotencyKeyReused)
    return new ApiError('idempotency_key_reused', error.message);
  if (error instanceof Throttled)
    return new ApiError('rate_limited', error.message, undefined, error.retryAfterSeconds);
  if (error instanceof Unavailable)
    return new ApiError('unavailable', error.message, undefined, error.retryAfterSeconds);
  return new ApiError('internal_error', 'An unexpected error occurred.');
}

/** SCIM clients read errors in the SCIM error schema (RFC 7644 §3.12), under `/scim/v2` only. */
const SCIM_PATH = /^\/scim\/v2(\/|$)/;

function sendScimError(res: Response, error: ApiError): void {
  const scimType =
    error.scimType ??
    (error.details?.some((d) => d.field === 'query.filter') ? 'invalidFilter' : undefined) ??
    (error.code === 'conflict'
      ? 'uniqueness'
      : error.code === 'invalid_request'
        ? 'invalidValue'
        : undefined);
  const detail = error.details?.length
    ? `${error.message} ${error.details.map((d) => `${d.field}: ${d.message}`).join('; ')}`
    : error.message;
  res
    .status(error.status)
    .type('application/scim+json')
    .json({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: String(error.status),
      ...(scimType ? { scimType } : {}),
      detail: detail.slice(0, 2000),
    });
}

export function sendError(res: Response, error: ApiError, req?: Request): void {
  if (error.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
  if (error.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (req && SCIM_PATH.test(req.path)) {
    sendScimError(res, error);
    return;
  }
  const body: { code: ErrorCode; message: string; details?: ErrorDetail[] } = {
    code: error.code,
    message: error.message,
  };
  if (error.details?.length) body.details = error.details;
  sendJson(res, error.status, { error: body });
}

/** A body that is JSON, but a string, number, boolean or null. */
export class NotAContainerError extends SyntaxError {}

/** Where the body stops being JSON, never the parser's own words (they quote the body). */
function malformedJson(error: unknown): ApiError {
  if (error instanceof JsonSyntaxError && error.at !== undefined) {
    const { line, column, offset } = error.at;
    return new ApiError(
      'invalid_request',
      `The request body is not valid JSON: it breaks at line ${line}, column ${column} (character ${offset + 1}).`,
      [
        {
          field: 'body',
          message: `must be valid JSON; the first error is at line ${line}, column ${column}`,
        },
      ],
    );
  }
  if (error instanceof NotAContainerError)
    return new ApiError('invalid_request', error.message, [
      { field: 'body', message: 'must be a JSON object or array' },
    ]);
  return new ApiError('invalid_request', 'The request body is not valid JSON.', [
    { field: 'body', message: 'must be valid JSON' },
  ]);
}

export function bodyTooLarge(limit: number | undefined): ApiError {
  if (limit === undefined)
    return new ApiError('payload_too_large', 'The request body is too large.');
  const size =
    limit % 1_048_576 === 0
      ? `${limit / 1_048_576} MiB`
      : limit % 1024 === 0
        ? `${limit / 1024} KiB`
        : `${limit} bytes`;
  return new ApiError(
    'payload_too_large',
    `The request body is too large: this operation takes at most ${size} (${limit} bytes).`,
  );
}

interface BodyParserError {
  type?: string;
}

/** Maps what body-parser throws, and domain errors that escaped a handler, onto the envelope. */
function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return fromDomainError(error, 'body');
  switch ((error as BodyParserError)?.type) {
    case 'entity.too.large':
      return bodyTooLarge((error as { limit?: number }).limit);
    case 'entity.parse.failed':
      return malformedJson(error);
    case 'encoding.unsupported':
      return new ApiError('unsupported_media_type', 'The request body encoding is not supported.');
    case 'charset.unsupported':
      return new ApiError(
        'unsupported_media_type',
        'The request body must be UTF-8 JSON: send Content-Type: application/json, with no charset or charset=utf-8.',
      );
    default:
      return undefined;
  }
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (!res.headersSent) closeIfBodyUnread(req, res);
    if (apiError) return sendError(res, apiError, req);
    if ((error as BodyParserError)?.type === 'request.aborted') {
      // The client's doing, not the server's: nobody is left to answer.
      logger.info(
        { requestId: res.locals.requestId, method: req.method },
        'client aborted the request body',
      );
      return void res.destroy();
    }
    logger.error(
      { err: error, requestId: res.locals.requestId, method: req.method },
      'unexpected error',
    );
    if (res.headersSent) return void res.destroy();
    sendError(res, new ApiError('internal_error', 'An unexpected error occurred.'), req);
  };
}
