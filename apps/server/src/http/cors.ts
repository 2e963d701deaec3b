import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'X-Request-Id',
  'traceparent',
  'tracestate',
].join(', ');

const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'ETag',
  'X-Request-Id',
  'Retry-After',
].join(', ');

const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';

/**
 * docs/operations.md: only the listed origins get `Access-Control-*` headers (their own origin
 * echoed), and their preflight `OPTIONS` is answered 204 here, before authentication. Any
 * other origin gets no `Access-Control-*` header at all, so the browser refuses it.
 */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    if (allowed.size === 0) return next();
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}
