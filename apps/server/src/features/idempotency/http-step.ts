import type { Request, Response } from 'express';
import { ApiError, sendError, sendJson } from '../../http/index.js';
import type { IdempotencyService, IdempotentRequest, StoredResponse } from './service.js';

/** 1–255 printable ASCII characters (docs/idempotency.md). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** Headers of a kept response that a replay sends again. */
const REPLAYED_HEADERS = ['ETag'];

/** The request's `Idempotency-Key`, if it sent one; 400 if it is not a valid one. */
function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !VALID_KEY.test(key))
    throw new ApiError('invalid_request', 'The Idempotency-Key header is invalid.', [
      { field: 'header.Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
    ]);
  return key;
}

/** Sends a kept response again, with this request's `meta.requestId`. */
function replay(res: Response, response: StoredResponse): void {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  sendJson(res, response.status, response.body);
}

/**
 * Holds back the JSON response the handler sends until its work has committed with the kept
 * response: a client never sees an answer whose work could still roll back. `send` lets it go;
 * `drop` forgets it (the error handler answers instead).
 */
function holdJson(res: Response) {
  const json = res.json.bind(res);
  let body: Record<string, unknown> | undefined;
  res.json = (value: Record<string, unknown>) => {
    body = value;
    return res;
  };
  return {
    held: (): StoredResponse | undefined => {
      if (body === undefined) return undefined;
      const { meta, ...rest } = body as { meta?: Record<string, unknown> };
      const { requestId: _, ...otherMeta } = meta ?? {};
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = res.getHeader(name);
        if (typeof value === 'string') headers[name] = value;
      }
      return {
        status: res.statusCode,
        body: Object.keys(otherMeta).length > 0 ? { ...rest, meta: otherMeta } : rest,
        headers,
      };
    },
    send: () => {
      res.json = json;
      if (body !== undefined) json(body);
    },
    drop: () => {
      res.json = json;
      for (const name of REPLAYED_HEADERS) res.removeHeader(name);
    },
  };
}

/**
 * Runs `handle` once for the request's key (see `IdempotencyService.run`) and answers with
 * its response, or with the response kept for the key. `handle` throws what the client should
 * see as an `ApiError`; anything else is a 500, and nothing of it stays.
 */
async function runIdempotently(
  service: Pick<IdempotencyService, 'run'>,
  request: IdempotentRequest,
  res: Response,
  handle: () => Promise<void>,
): Promise<void> {
  const hold = holdJson(res);
  let outcome: Awaited<ReturnType<IdempotencyService['run']>>;
  try {
    outcome = await service.run(request, async () => {
      try {
        await handle();
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        sendError(res, error);
      }
      return { response: hold.held() };
    });
  } catch (error) {
    hold.drop();
    throw error;
  }
  if (outcome.kind === 'replay') {
    hold.drop();
    return replay(res, outcome.response);
  }
  hold.send();
}

/** The dispatch step of writes sent with an `Idempotency-Key` (http/dispatch.ts). */
export function idempotencyStep(service: Pick<IdempotencyService, 'fingerprint' | 'run'>) {
  return {
    keyOf: idempotencyKeyOf,
    fingerprint: (method: string, path: string, body: unknown) =>
      service.fingerprint(method, path, body),
    run: (request: IdempotentRequest, res: Response, handle: () => Promise<void>) =>
      runIdempotently(service, request, res, handle),
  };
}
