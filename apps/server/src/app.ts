import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Services } from './composition.js';
import type { Config } from './config.js';
import { policyBodyChecks } from './features/policies/api.js';
import { authenticator, authorizer } from './http/auth.js';
import { BodyBudget } from './http/body-budget.js';
import type { Handlers } from './http/context.js';
import { cors } from './http/cors.js';
import { dispatcher } from './http/dispatch.js';
import { errorHandler } from './http/errors.js';
import type { InFlightRequests } from './http/in-flight.js';
import { loadSpec, type Operation, Router, readOperations } from './http/operations.js';
import { requestId } from './http/request-id.js';
import { sequence } from './http/sequence.js';
import { SpecValidator } from './http/validation.js';
import { requestLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { RateLimitStore } from './rate-limit/store.js';
import type { Tracing } from './tracing.js';

export interface AppDeps {
  config: Config;
  services: Services;
  /** One handler per operation of the spec (composition.ts). */
  handlers: Handlers;
  rateLimits: RateLimitStore;
  logger: Logger;
  inFlight: InFlightRequests;
  metrics: Metrics;
  tracing: Pick<Tracing, 'middleware'>;
  /** True while free disk space is below `SECADMIN_MIN_FREE_DISK_MB`: writes get 503. */
  diskLow: () => boolean;
}

/**
 * The spec and what is compiled from it are the same for every app of a process: compiled once
 * (compiling every response schema takes seconds, and a test process starts many servers).
 */
let compiledSpec: { operations: Operation[]; validator: SpecValidator } | undefined;
function specOf(): { operations: Operation[]; validator: SpecValidator } {
  if (!compiledSpec) {
    const spec = loadSpec();
    compiledSpec = {
      operations: readOperations(spec),
      validator: new SpecValidator(spec, policyBodyChecks),
    };
  }
  return compiledSpec;
}

/** The Express app, without listening: tests build it in-process. */
export function createApp({
  config,
  services,
  handlers,
  rateLimits,
  logger,
  inFlight,
  metrics,
  tracing,
  diskLow,
}: AppDeps): Express {
  const { operations, validator } = specOf();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);

  app.use(
    sequence([
      inFlight.track,
      tracing.middleware,
      requestId(['/access/']),
      metrics.httpMiddleware(),
      helmet(),
      requestLogger(logger),
      cors(config.corsOrigins),
      dispatcher({
        router: new Router(operations),
        operations,
        validator,
        handlers,
        authenticate: authenticator({
          authenticate: (secret) => services.apiKeys.authenticate(secret),
          rateLimits,
          recordAuthFailure: (request) => services.audit.recordAuthFailure(request),
        }),
        authorize: authorizer((request) => services.access.decide(request)),
        rateLimits,
        idempotency: services.idempotencyStep,
        validateResponses: config.validateResponses,
        diskLow,
        bodies: new BodyBudget(config.bodies),
      }),
    ]),
  );
  app.use(errorHandler(logger));
  return app;
}
