import type { RequestHandler } from 'express';
import { type Logger, pino } from 'pino';

/** Secrets must never reach a log line, even if a future call site passes them. */
const REDACT = [
  'password',
  'secret',
  'token',
  'authorization',
  '*.password',
  '*.secret',
  '*.token',
  '*.authorization',
  'req.headers.authorization',
  'body',
];

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: 'secadmin' },
  });
}

/**
 * One line per request: id, method, path (never the query string, which may carry a
 * download token), status, duration and the key id. No headers, no bodies.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.baseUrl + req.path,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          keyId: res.locals.keyId,
        },
        'request',
      );
    });
    next();
  };
}
