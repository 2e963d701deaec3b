import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { ConsoleFiles } from './features/console/index.js';
import { createHandlers } from './features/handlers.js';
import { policyBodyChecks } from './features/policies/index.js';
import type { Services } from './features/services.js';
import { authenticator, authorizer } from './http/auth.js';
import { BodyBudget } from './http/body-budget.js';
import { cors } from './http/cors.js';
import { dispatcher } from './http/dispatch.js';
import { errorHandler } from './http/errors.js';
import type { InFlightRequests } from './http/in-flight.js';
import { loadSpec, type Operation, Router, readOperations } from './http/operations.js';
import { requestId } from './http/request-id.js';
import { sequence } from './http/sequence.js';
import { loadStaticFile, type StaticFile } from './http/static-file.js';
import { SpecValidator } from './http/validation.js';
import { requestLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { RateLimitStore } from './rate-limit/store.js';
import type { Tracing } from './tracing.js';

export interface AppDeps {
  config: Config;
  /** Resolves when the database answers (readiness). */
  ping: () => Promise<void>;
  /** Whether the read replica answers; absent without `DATABASE_READ_URL`. */
  readReplicaHealth?: () => Promise<'ok' | 'unavailable'>;
  services: Services;
  rateLimits: RateLimitStore;
  logger: Logger;
  inFlight: InFlightRequests;
  metrics: Metrics;
  tracing: Pick<Tracing, 'middleware'>;
  /** True while free disk space is below `SECADMIN_MIN_FREE_DISK_MB`: writes get 503. */
  diskLow: () => boolean;
}

/** The bundled spec, the rendered reference and its icon, as built (with compressed copies). */
function loadSystemFiles() {
  const resolve = createRequire(import.meta.url).resolve;
  return {
    spec: loadStaticFile(resolve('@secadmin/spec/openapi.json'), 'json'),
    reference: loadStaticFile(resolve('@secadmin/docs/index.html'), 'html'),
    favicon: loadStaticFile(resolve('@secadmin/docs/favicon.ico'), 'image/x-icon'),
  };
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** The console as built: its page and every file under `assets/` (the compressed copies beside). */
function loadConsoleFiles(): ConsoleFiles {
  const page = createRequire(import.meta.url).resolve('@secadmin/console/index.html');
  const dir = join(dirname(page), 'assets');
  const assets = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = ASSET_TYPES[extname(name)];
    if (type) assets.set(name, loadStaticFile(join(dir, name), type));
  }
  return { page: loadStaticFile(page, 'html'), assets };
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
  ping,
  readReplicaHealth,
  services,
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
        handlers: createHandlers(
          services,
          {
            ping,
            ...(readReplicaHealth ? { readReplicaHealth } : {}),
            rateLimitStoreHealth: () => rateLimits.health(),
            diskLow,
            ...loadSystemFiles(),
          },
          loadConsoleFiles(),
        ),
        authenticate: authenticator({
          currentVersions: () => services.versions.current(),
          authenticate: (secret, versions) => services.apiKeys.authenticate(secret, versions),
          rateLimits,
          recordAuthFailure: (request) => services.audit.recordAuthFailure(request),
        }),
        authorize: authorizer((request, versions) => services.access.decide(request, versions)),
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
