import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Request, Response } from 'express';

/** Encodings a static file may be precompressed in, best first (`<file>.br`, `<file>.gz`). */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

interface Representation {
  encoding: string;
  body: Buffer;
  etag: string;
}

/** A file served as built: its identity bytes and the precompressed copies beside it. */
export interface StaticFile {
  type: string;
  representations: Representation[];
}

export function loadStaticFile(path: string, type: string): StaticFile {
  const body = readFileSync(path);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  const representations: Representation[] = [];
  for (const { name, suffix } of ENCODINGS) {
    if (existsSync(path + suffix))
      representations.push({
        encoding: name,
        body: readFileSync(path + suffix),
        etag: `"${hash}-${name}"`,
      });
  }
  representations.push({ encoding: 'identity', body, etag: `"${hash}"` });
  return { type, representations };
}

/**
 * Sends the best representation the client accepts, with an ETag per representation, to be
 * revalidated on every use (`no-cache`, unless the caller says otherwise): a client that has it
 * gets a 304 and no body.
 */
export function sendStaticFile(
  req: Request,
  res: Response,
  file: StaticFile,
  cacheControl = 'no-cache',
): void {
  // Our order (the smallest first) among what the client accepts: clients list `gzip` before
  // `br` with the same weight, and would otherwise get the larger file.
  const chosen =
    file.representations.find((r) => req.acceptsEncodings(r.encoding) === r.encoding) ??
    (file.representations.at(-1) as Representation);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', chosen.etag);
  if (chosen.encoding !== 'identity') res.setHeader('Content-Encoding', chosen.encoding);
  // `send` answers 304 without a body when `If-None-Match` names this ETag (`req.fresh`).
  res.type(file.type).send(chosen.body);
}
