import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OperationId } from '@secadmin/api-types';
import type { Database } from '@secadmin/db';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createHandlers } from './handlers/index.js';
import { authenticate, authorize } from './http/auth.js';
import { parseJsonBody, rejectNulCharacters, requireJsonBody } from './http/body.js';
import { ApiError, errorHandler } from './http/errors.js';
import type { InFlightRequests } from './http/in-flight.js';
import { limitByIp } from './http/rate-limit.js';
import { requestId } from './http/request-id.js';
import { createOperationMatcher, loadSpec } from './http/spec.js';
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

  app.use(inFlight.track);
  app.use(requestId);
  app.use(helmet());
  app.use(requestLogger(logger));
  app.use(
    '/v1',
    authenticate({
      prisma: db.prisma,
      query: db.query,
      apiKeys: services.apiKeys,
      rateLimits,
      audit: services.audit,
    }),
  );
  app.use(
    '/v1',
    authorize({ access: services.access, matchOperation: createOperationMatcher(spec) }),
  );
  app.use('/downloads', limitByIp(rateLimits));
  app.use(requireJsonBody);
  app.use(parseJsonBody);
  app.use(rejectNulCharacters);
  app.use(
    OpenApiValidator.middleware({
      apiSpec: spec as never,
      validateApiSpec: false,
      validateRequests: { allErrors: true, coerceTypes: true },
      validateResponses: config.validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      validateFormats: true,
      operationHandlers: {
        basePath: '/',
        resolver: (_basePath, route, apiDoc) => {
          const item = apiDoc.paths?.[route.openApiRoute] as
            | Record<string, { operationId: OperationId }>
            | undefined;
          const operationId = item?.[route.method.toLowerCase()]?.operationId;
          if (!operationId)
            throw new Error(`No operationId for ${route.method} ${route.openApiRoute}`);
          return handlers[operationId];
        },
      },
    }),
  );
  app.use(() => {
    throw new ApiError('not_found', 'No such route.');
  });
  app.use(errorHandler(logger));
  return app;
}
