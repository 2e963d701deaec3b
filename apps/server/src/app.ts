import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Database } from '@secadmin/db';
import express, { type Express, type Request, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createHandlers } from './handlers/index.js';
import { authenticate, authorize } from './http/auth.js';
import { parseJsonBody, rejectHostileJson, requireJsonBody } from './http/body.js';
import { ApiError, errorHandler } from './http/errors.js';
import type { InFlightRequests } from './http/in-flight.js';
import { limitByIp } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import { sequence } from './http/sequence.js';
import { createOperationMatcher, loadSpec, type MatchedOperation } from './http/spec.js';
import { strictQuery } from './http/strict-query.js';
import { requestLogger } from './logger.js';
import type { RateLimitStore } from './rate-limit/store.js';
import type { Services } from './services/index.js';

export interface AppDeps {
  config: Config;
  db: Database;
  services: Services;
  rateLimits: RateLimitStore;
  logger: Logger;
  inFlight: InFlightRequests;
}

function loadDocsHtml(): string {
  return readFileSync(createRequire(import.meta.url).resolve('@secadmin/docs/index.html'), 'utf8');
}

/** The Express app, without listening: tests build it in-process. */
export function createApp({
  config,
  db,
  services,
  rateLimits,
  logger,
  inFlight,
}: AppDeps): Express {
  const spec = loadSpec();
  const handlers = createHandlers(services, { ping: db.ping, spec, docsHtml: loadDocsHtml() });
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  app.set('etag', false);

  const matchOperation = createOperationMatcher(spec);
  const validator = OpenApiValidator.middleware({
    apiSpec: spec as never,
    validateApiSpec: false,
    // Bodies are never converted (decisions.md §5); query strings are checked by strictQuery first.
    validateRequests: { allErrors: true, coerceTypes: false },
    validateResponses: config.validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    validateFormats: true,
  });
  const onlyFor =
    (test: (req: Request) => boolean, step: RequestHandler): RequestHandler =>
    (req, res, next) =>
      test(req) ? step(req, res, next) : next();
  const isV1 = (req: Request) => req.path.startsWith('/v1/');
  const dispatch: RequestHandler = (req, res, next) => {
    const operation = res.locals.operation as MatchedOperation | undefined;
    if (!operation) throw new ApiError('not_found', 'No such route.');
    return handlers[operation.operationId](req, res, next);
  };

  app.use(
    sequence([
      inFlight.track,
      requestId,
      helmet(),
      requestLogger(logger),
      (req, res, next) => {
        res.locals.operation = matchOperation(req.method, req.path);
        next();
      },
      onlyFor(
        isV1,
        authenticate({
          prisma: db.prisma,
          currentVersions: () => services.versions.current(),
          apiKeys: services.apiKeys,
          rateLimits,
          audit: services.audit,
        }),
      ),
      onlyFor(isV1, authorize({ access: services.access })),
      onlyFor((req) => req.path.startsWith('/downloads/'), limitByIp(rateLimits)),
      requireJsonBody,
      parseJsonBody,
      rejectHostileJson,
      strictQuery(spec),
      ...(validator as unknown as RequestHandler[]),
      dispatch,
    ]),
  );
  app.use(errorHandler(logger));
  return app;
}
