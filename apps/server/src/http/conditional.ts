import type { Request, Response } from 'express';
import type { Precondition } from '../lib/etag.js';

const ENTITY_TAG = /(W\/)?"[^"]*"/g;

/** The tags of an `If-Match` or `If-None-Match` header, `*`, or undefined without the header. */
function listedTags(
  header: string | undefined,
): { weak: boolean; tag: string }[] | '*' | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  return [...header.matchAll(ENTITY_TAG)].map((m) => ({
    weak: m[1] !== undefined,
    tag: m[0].slice(m[1]?.length ?? 0),
  }));
}

/** `If-Match` as a precondition of a write: strong comparison; `*` matches any existing resource. */
export function ifMatch(req: Request): Precondition | undefined {
  const listed = listedTags(req.headers['if-match']);
  if (listed === undefined) return undefined;
  return (current) => listed === '*' || listed.some(({ weak, tag }) => !weak && tag === current);
}

/**
 * Sets the `ETag` of a read; answers 304 with no body (true) when `If-None-Match` holds it
 * (weak comparison, RFC 9110 §13.1.2).
 */
export function notModified(req: Request, res: Response, etag: string): boolean {
  res.setHeader('ETag', etag);
  const listed = listedTags(req.headers['if-none-match']);
  if (listed === undefined) return false;
  if (listed !== '*' && !listed.some(({ tag }) => tag === etag)) return false;
  res.status(304).end();
  return true;
}
