import type { RequestHandler } from 'express';
import { newId } from '../lib/ids.js';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Reuses a safe incoming `X-Request-Id`, or makes one; echoed on every response. Under the
 * `echoAsSent` path prefixes (AuthZEN's, whose clients must get their own id back whatever it
 * is), an incoming id that is not safe is echoed as sent while the logs and `meta.requestId`
 * keep the one made here.
 */
export function requestId(echoAsSent: readonly string[] = []): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming !== undefined && SAFE.test(incoming) ? incoming : newId('req');
    res.locals.requestId = id;
    const echoed =
      incoming !== undefined && echoAsSent.some((prefix) => req.path.startsWith(prefix))
        ? incoming
        : id;
    res.setHeader('X-Request-Id', echoed);
    next();
  };
}
