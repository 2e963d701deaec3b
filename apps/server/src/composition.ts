import type { Logger } from 'pino';
import type { ApiKeysService } from './features/api-keys/api.js';
import { createApiKeys } from './features/api-keys/module.js';
import type { AuditLogApi } from './features/audit-log/api.js';
import { type AuditLogOptions, createAuditLog } from './features/audit-log/module.js';
import { createAuthzen } from './features/authzen/module.js';
import { type ConsoleFiles, createConsole } from './features/console/module.js';
import { createIdempotency } from './features/idempotency/module.js';
import { createLogStreams, type LogStreamsOptions } from './features/log-streams/module.js';
import type { Access } from './features/policies/api.js';
import { createPolicies } from './features/policies/module.js';
import { createRoles } from './features/roles/module.js';
import { createScim } from './features/scim/module.js';
import { createSystem, type SystemDeps } from './features/system/module.js';
import { createUsers } from './features/users/module.js';
import type { Handlers } from './http/context.js';
import { Cursors } from './lib/cursor.js';
import type { Job } from './lib/poll-loop.js';
import { promptReading } from './lib/prompt-reading.js';
import type { DomainCounters } from './metrics.js';
import { StateVersionsRepository, StateVersionsSource } from './storage/state-versions.js';
import type { Store } from './storage/store.js';

/** The longest readiness waits for the analytics store's state before answering the last one. */
const ANALYTICS_HEALTH_WAIT_MS = 250;

/** What the HTTP plumbing is given of the features (app.ts): keys, decisions, idempotency. */
export interface Services {
  versions: StateVersionsSource;
  audit: AuditLogApi;
  access: Access;
  apiKeys: ApiKeysService;
  /** The dispatch step of writes sent with an `Idempotency-Key`. */
  idempotencyStep: ReturnType<typeof createIdempotency>['step'];
  /** The service behind ingest, list and get of the audit log (a test replaces its `ingest`). */
  logs: ReturnType<typeof createAuditLog>['logs'];
}

export interface CompositionOptions {
  secret: string;
  counters?: DomainCounters;
  logger: Logger;
  /** The most bytes of kept idempotent responses per principal (docs/idempotency.md). */
  maxKeptBytes?: number;
  /** `SECADMIN_PUBLIC_URL`: the base of the AuthZEN metadata's URLs and of SCIM locations. */
  publicUrl: string;
  auditLog: Omit<AuditLogOptions, 'cursors' | 'secret' | 'counters' | 'logger' | 'permits'>;
  logStreams: Omit<
    LogStreamsOptions,
    'store' | 'sealed' | 'audit' | 'cursors' | 'access' | 'secret' | 'logger' | 'counters'
  >;
  system: Omit<SystemDeps, 'analyticsHealth'>;
  console: ConsoleFiles;
}

/** Every feature, built and wired, and what the server runs beside them. */
export interface Composition {
  services: Services;
  /** One handler per operation of the spec, from the features' modules. */
  handlers: Handlers;
  /** Every feature's background jobs: started once the server listens, stopped at shutdown. */
  jobs: readonly Job[];
  /** Before the first request (server.ts). */
  prepare(): Promise<void>;
  /** Seals entries into the hash chain; `flush()` seals now and signs a checkpoint (tests). */
  sealer: ReturnType<typeof createAuditLog>['sealer'];
  exportWorker: ReturnType<typeof createAuditLog>['exportWorker'];
  searchIndex: ReturnType<typeof createAuditLog>['searchIndex'];
  /** Pushes the log to log streams; `stop()` waits for the deliveries in flight (tests). */
  streamDeliverer: ReturnType<typeof createLogStreams>['deliverer'];
}

/** What every feature's `module.ts` builds: its operations and its background jobs. */
interface FeatureModule {
  handlers: object;
  jobs: readonly Job[];
}

type Intersection<U> = (U extends unknown ? (each: U) => void : never) extends (
  all: infer I,
) => void
  ? I
  : never;

/** The modules' handler maps as one; an operation that two modules handle is a wiring error. */
export function mergeHandlers<M extends readonly FeatureModule[]>(
  modules: M,
): Intersection<M[number]['handlers']> {
  const merged: Record<string, unknown> = {};
  for (const { handlers } of modules) {
    for (const [operationId, handler] of Object.entries(handlers)) {
      if (operationId in merged) throw new Error(`${operationId} is handled by two modules`);
      merged[operationId] = handler;
    }
  }
  return merged as Intersection<M[number]['handlers']>;
}

/** The composition root: the one place that knows every feature, and wires each to the others. */
export function createComposition(store: Store, options: CompositionOptions): Composition {
  const versions = new StateVersionsSource(new StateVersionsRepository(store.connection), () =>
    store.inTransaction(),
  );
  const cursors = new Cursors(options.secret);
  const auditLog = createAuditLog(store, {
    ...options.auditLog,
    // Log streams and policies are made below; retention and the chain ask them only when they run.
    retentionHold: () => logStreams.oldestUndelivered(),
    permits: (...check) => policies.access.permits(...check),
    cursors,
    secret: options.secret,
    logger: options.logger,
    ...(options.counters ? { counters: options.counters } : {}),
  });
  const audit = auditLog.api;
  const idempotency = createIdempotency(store, {
    secret: options.secret,
    maxKeptBytes: options.maxKeptBytes,
    logger: options.logger,
  });
  // Users depends on api keys and policies, which reach back into users only when called.
  const policies = createPolicies({
    store,
    versions,
    audit,
    cursors,
    userStanding: async (userId) => (await users.service.standing(userId)) ?? undefined,
    userAttributes: async (userId) => (await users.service.attributes(userId)) ?? undefined,
    counters: options.counters,
  });
  const apiKeys = createApiKeys({
    store,
    versions,
    audit,
    cursors,
    keptResponses: idempotency.service,
    userExists: (userId) => users.service.exists(userId),
    userActive: (userId) => users.service.isActive(userId),
  });
  const users = createUsers({
    store,
    versions,
    audit,
    cursors,
    access: policies.access,
    attributesRead: policies.access,
    apiKeys: apiKeys.service,
    policies: policies.policies,
    logs: audit,
    keptResponses: idempotency.service,
  });
  const authzen = createAuthzen({
    simulator: policies.simulation,
    storedPolicies: () => policies.access.storedPolicies(),
    usersAfter: (after, take) => users.service.idsAfter(after, take),
    storedUsersAmong: (ids) => users.service.existing(ids),
    mayListUsers: (caller) => policies.access.permits(caller, 'users:list', 'users'),
    cursors,
    readableBy: policies.readableBy,
    publicUrl: options.publicUrl,
  });
  const logStreams = createLogStreams({
    ...options.logStreams,
    store,
    sealed: auditLog.sealedEntries,
    audit,
    cursors,
    access: policies.access,
    secret: options.secret,
    logger: options.logger,
    counters: options.counters,
  });
  const roles = createRoles({
    store,
    versions,
    audit,
    cursors,
    access: policies.access,
    members: users.service,
  });
  const scim = createScim({
    store,
    users: users.service,
    roles: roles.service,
    access: policies.access,
    publicUrl: options.publicUrl,
  });
  const modules = [
    auditLog,
    idempotency,
    policies,
    apiKeys,
    users,
    authzen,
    logStreams,
    roles,
    scim,
    createSystem({
      ...options.system,
      // Read on the pool, which a burst of slow requests may hold for seconds: readiness answers
      // the last state read rather than wait. A store it cannot read the state of is behind as
      // far as anyone can tell.
      analyticsHealth: promptReading(
        () =>
          auditLog.searchIndex.status().then(
            (index) => index.status,
            () => 'lagging' as const,
          ),
        'lagging',
        ANALYTICS_HEALTH_WAIT_MS,
      ),
    }),
    createConsole(options.console),
  ] as const;
  const handlers: Handlers = mergeHandlers(modules);
  return {
    services: {
      versions,
      audit,
      access: policies.access,
      apiKeys: apiKeys.service,
      idempotencyStep: idempotency.step,
      logs: auditLog.logs,
    },
    handlers,
    jobs: modules.flatMap((module) => module.jobs),
    prepare: () => auditLog.prepare(),
    sealer: auditLog.sealer,
    exportWorker: auditLog.exportWorker,
    searchIndex: auditLog.searchIndex,
    streamDeliverer: logStreams.deliverer,
  };
}
