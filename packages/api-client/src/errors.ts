import type { ApiError, ErrorCode } from '@secadmin/api-types';
import type { Middleware } from 'openapi-fetch';

/** One entry of an error's `details`: which field was wrong, and how. */
export type ErrorDetail = NonNullable<ApiError['error']['details']>[number];

/** A non-2xx answer from the secadmin API, with the fields of its error envelope. */
export class SecadminApiError extends Error {
  override readonly name = 'SecadminApiError';
  /** The HTTP status, e.g. 404. */
  readonly status: number;
  /** The envelope's machine-readable code; `unknown` when the body was not an envelope. */
  readonly code: ErrorCode | 'unknown';
  /** Per-field problems, for `invalid_request`. */
  readonly details: ErrorDetail[];
  /** The request's id (`meta.requestId` or `X-Request-Id`), to quote when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(init: {
    status: number;
    code: ErrorCode | 'unknown';
    message: string;
    details?: ErrorDetail[];
    requestId?: string | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
  }

  /** Reads the envelope from a response; a body that is not one still gives a usable error. */
  static async fromResponse(response: Response): Promise<SecadminApiError> {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    let body: unknown;
    try {
      body = await response.clone().json();
    } catch {
      body = undefined;
    }
    if (isEnvelope(body)) {
      return new SecadminApiError({
        status: response.status,
        code: body.error.code,
        message: body.error.message,
        details: body.error.details ?? [],
        requestId: body.meta?.requestId ?? requestId,
      });
    }
    return new SecadminApiError({
      status: response.status,
      code: 'unknown',
      message: `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId,
    });
  }
}

/**
 * The request got no answer: the connection was refused or reset, the host was not found, or the
 * client's `timeout` ran out. `cause` holds the underlying error. An abort through the caller's
 * own `signal` is not one of these: it rejects with the signal's reason.
 */
export class SecadminConnectionError extends Error {
  override readonly name = 'SecadminConnectionError';

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** Turns every non-2xx answer into a thrown {@link SecadminApiError}. */
export const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await SecadminApiError.fromResponse(response);
    return response;
  },
};

function isEnvelope(body: unknown): body is ApiError {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
