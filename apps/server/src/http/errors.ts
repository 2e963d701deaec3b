import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { sendJson } from './respond.js';

export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error';

export interface ErrorDetail {
  field: string;
  message: string;
}

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
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
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export const invalid = (field: string, message: string) =>
  new ApiError('invalid_request', 'The request is invalid.', [{ field, message }]);
export const notFound = (what: string) => new ApiError('not_found', `No ${what} with this id.`);

function sendError(res: Response, error: ApiError): void {
  if (error.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
  if (error.retryAfterSeconds !== undefined)
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
  const body: { code: ErrorCode; message: string; details?: ErrorDetail[] } = {
    code: error.code,
    message: error.message,
  };
  if (error.details?.length) body.details = error.details;
  sendJson(res, error.status, { error: body });
}

/** `/body/entries/0/event` → `body.entries[0].event`. */
function fieldName(path: string): string {
  return path
    .replace(/^\//, '')
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

interface ValidatorError {
  status?: number;
  errors?: { path?: string; message?: string }[];
  type?: string;
  message?: string;
}

/** Maps what express, body-parser and express-openapi-validator throw onto the envelope. */
function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  const e = error as ValidatorError;
  if (typeof e?.type === 'string') {
    if (e.type === 'entity.too.large') {
      return new ApiError('payload_too_large', 'The request body is too large.');
    }
    if (e.type === 'entity.parse.failed') {
      return new ApiError('invalid_request', 'The request body is not valid JSON.', [
        { field: 'body', message: 'must be valid JSON' },
      ]);
    }
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      return new ApiError('unsupported_media_type', 'The request body encoding is not supported.');
    }
  }
  switch (e?.status) {
    case 400: {
      const details = (e.errors ?? []).map((item) => ({
        field: fieldName(item.path ?? 'body'),
        message: item.message ?? 'is invalid',
      }));
      return new ApiError('invalid_request', 'The request is invalid.', details);
    }
    case 404:
    case 405:
      return new ApiError('not_found', 'No such route.');
    case 413:
      return new ApiError('payload_too_large', 'The request body is too large.');
    case 415:
      return new ApiError('unsupported_media_type', 'Request bodies must be application/json.');
    default:
      return undefined;
  }
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error);
    if (apiError) return sendError(res, apiError);
    logger.error(
      { err: error, requestId: res.locals.requestId, method: req.method },
      'unexpected error',
    );
    if (res.headersSent) return void res.destroy();
    sendError(res, new ApiError('internal_error', 'An unexpected error occurred.'));
  };
}
