import type { Request, Response } from 'express';
import type {
  IdempotencyService,
  IdempotentRequest,
  StoredResponse,
} from '../features/idempotency/service.js';
import { requestFingerprint } from '../features/idempotency/service.js';
import { ApiError, sendError } from './errors.js';
import { sendJson } from './respond.js';

/** 1–255 printable ASCII characters (docs/idempotency.md). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** Headers of a kept response that a replay sends again. */
const REPLAYED_HEADERS = ['ETag'];

/** The request's `Idempotency-Key`, if it sent one; 400 if it is not a valid one. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !VALID_KEY.test(key))
    throw new ApiError('invalid_request', 'The Idempotency-Key header is invalid.', [
      { field: 'header.Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
    ]);
  return key;
}

export function idempotentRequest(
  req: Request,
  keyId: string,
  idempotencyKey: string,
  body: unknown,
): IdempotentRequest {
  return { keyId, idempotencyKey, fingerprint: requestFingerprint(req.method, req.path, body) };
}

/** Sends a kept response again, with this request's `meta.requestId`. */
export function replay(res: Response, response: StoredResponse): void {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  sendJson(res, response.status, response.body);
}

/**
 * Holds back the JSON response the handler sends, so that it is kept before the client can
 * see it (a retry arriving just after the response must find it). `send` lets it go.
 */
function holdJson(res: Response): { held: () => StoredResponse | undefined; send: () => void } {
  const json = res.json.bind(res);
  let body: Record<string, unknown> | undefined;
  res.json = (value: Record<string, unknown>) => {
    body = value;
    return res;
  };
  return {
    held: () => {
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
  };
}

/**
 * Runs `handle` under the claimed key: keeps its response (success or 4xx) for replays, or
 * releases the key when it fails otherwise, so that a retry runs again. `handle` throws what the
 * client should see as an `ApiError`; anything else is a 500.
 */
export async function runIdempotently(
  service: IdempotencyService,
  request: IdempotentRequest,
  res: Response,
  handle: () => Promise<void>,
): Promise<void> {
  const outcome = await service.claim(request);
  if (outcome.kind === 'replay') return replay(res, outcome.response);
  const hold = holdJson(res);
  try {
    await handle();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) {
      hold.send();
      await service.release(request, outcome.claimId).catch(() => {});
      throw error;
    }
    sendError(res, error);
  }
  const response = hold.held();
  try {
    if (response && response.status < 500) await service.keep(request, outcome.claimId, response);
    else await service.release(request, outcome.claimId);
  } catch {
    // The work is done and its answer is due: the client gets it, only a replay is lost.
    await service.release(request, outcome.claimId).catch(() => {});
  } finally {
    hold.send();
  }
}
