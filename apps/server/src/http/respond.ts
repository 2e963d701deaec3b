import type { Response } from 'express';
import type { Page } from '../lib/cursor.js';

/** Sends a JSON body with `meta.requestId` (merged into any meta the body has). */
export function sendJson(res: Response, status: number, body: Record<string, unknown>): void {
  const meta = { ...(body.meta as object | undefined), requestId: res.locals.requestId };
  res.status(status).json({ ...body, meta });
}

export const ok = (res: Response, data: unknown) => sendJson(res, 200, { data });
export const created = (res: Response, data: unknown) => sendJson(res, 201, { data });
export const noContent = (res: Response) => void res.status(204).end();

export function sendPage<T>(res: Response, page: Page<T>, meta?: Record<string, unknown>): void {
  const pagination =
    page.nextCursor === undefined
      ? { hasMore: false }
      : { hasMore: true, nextCursor: page.nextCursor };
  sendJson(res, 200, { data: page.items, pagination, ...(meta ? { meta } : {}) });
}

/** A SCIM body (RFC 7644 §3.1: `application/scim+json`), as it is: no envelope. */
export function sendScim(res: Response, status: number, body: object): void {
  res.status(status).type('application/scim+json').json(body);
}
