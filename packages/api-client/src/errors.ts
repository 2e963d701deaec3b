import type { ApiError, ErrorCode } from '@secadmin/api-types';

export type ErrorDetail = NonNullable<ApiError['error']['details']>[number];

/** A non-2xx answer from the secadmin API, with the fields of its error envelope. */
export class SecadminApiError extends Error {
  override readonly name = 'SecadminApiError';
  readonly status: number;
  readonly code: ErrorCode | 'unknown';
  readonly details: ErrorDetail[];
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
