import type { Logger } from 'pino';
import { Cursors } from '../lib/cursor.js';
import type { Job } from '../lib/poll-loop.js';
import type { DomainCounters } from '../metrics.js';
import { StateVersionsRepository, StateVersionsSource } from '../storage/state-versions.js';
import type { Store } from '../storage/store.js';
import { type ApiKeysService, createApiKeys } from './api-keys/index.js';
import {
  type AuditLog,
  type AuditLogApi,
  type AuditLogOptions,
  createAuditLog,
} from './audit-log/index.js';
import { createAuthzen } from './authzen/index.js';
import {
  createIdempotency,
  type IdempotencyService,
  idempotencySweeper,
} from './idempotency/index.js';
import {
  createLogStreams,
  type LogStreamsOptions,
  type StreamDeliverer,
} from './log-streams/index.js';
import { type Access, createPolicies } from './policies/index.js';
import { createRoles } from './roles/index.js';
import { createScim } from './scim/index.js';
import { createUsers } from './users/index.js';

export interface Services {
  versions: StateVersionsSource;
  audit: AuditLogApi;
  access: Access;
  apiKeys: ApiKeysService;
  idempotency: IdempotencyService;
  /** The dispatch step of writes sent with an `Idempotency-Key`. */
  idempotencyStep: ReturnType<typeof createIdempotency>['step'];
  /** The operations of users, roles, policies and API keys. */
  handlers: ReturnType<typeof createUsers>['handlers'] &
    ReturnType<typeof createPolicies>['handlers'] &
    ReturnType<typeof createApiKeys>['handlers'] &
    ReturnType<typeof createAuthzen>['handlers'] &
    ReturnType<typeof createLogStreams>['handlers'] &
    ReturnType<typeof createRoles>['handlers'] &
    ReturnType<typeof createScim>['handlers'];
  logs: AuditLog['logs'];
  chain: AuditLog['chain'];
  redactions: AuditLog['redactions'];
  search: AuditLog['search'];
  stats: AuditLog['stats'];
  exports: AuditLog['exports'];
}

export interface ServicesOptions {
  secret: string;
  counters?: DomainCounters;
  logger: Logger;
  /** The most bytes of kept idempotent responses per principal (docs/idempotency.md). */
  maxKeptBytes?: number;
  /** `SECADMIN_PUBLIC_URL`: the base of the AuthZEN metadata's URLs and of SCIM locations. */
  publicUrl: string;
  auditLog: Omit<AuditLogOptions, 'cursors' | 'secret' | 'counters' | 'logger'>;
  logStreams: Omit<
    LogStreamsOptions,
    'store' | 'sealed' | 'audit' | 'cursors' | 'access' | 'secret' | 'logger' | 'counters'
  >;
}

/** The services, and what the server runs beside them. */
export interface Composition {
  services: Services;
  /** Before the first request (server.ts). */
  prepare(): Promise<void>;
  /** Started once the server listens, stopped at shutdown (server.ts). */
  jobs: {
    sealer: AuditLog['sealer'];
    exportWorker: AuditLog['exportWorker'];
    logMaintenance: Job;
    idempotencySweeper: Job;
    streamDeliverer: StreamDeliverer;
  };
}

/** The composition root: the one place that knows every feature, and wires each to the others. */
export function createServices(store: Store, options: ServicesOptions): Composition {
  const versions = new StateVersionsSource(new StateVersionsRepository(store.connection), () =>
    store.inTransaction(),
  );
  const cursors = new Cursors(options.secret);
  const auditLog = createAuditLog(store, {
    ...options.auditLog,
    // Log streams are made below; retention asks them only when it runs.
    retentionHold: () => logStreams.oldestUndelivered(),
    cursors,
    secret: options.secret,
    logger: options.logger,
    ...(options.counters ? { counters: options.counters } : {}),
  });
  const audit = auditLog.api;
  const idempotency = createIdempotency(store, {
    secret: options.secret,
    maxKeptBytes: options.maxKeptBytes,
  });
  // Users depends on api keys and policies, which reach back into users only when called.
  const policies = createPolicies({
    store,
    versions,
    audit,
    cursors,
    userStanding: async (userId) => (await users.service.standing(userId)) ?? undefined,
    userAttributes: async (userId) => (await users.service.attributes(userId)) ?? undefined,
    currentVersions: () => versions.current(),
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
    policiesAt: (versions) => policies.access.policiesAt(versions),
    usersAfter: (after, take) => users.service.idsAfter(after, take),
    storedUsersAmong: (ids) => users.service.existing(ids),
    mayListUsers: (caller, versions) =>
      policies.access.permits(caller, 'users:list', 'users', versions),
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
  return {
    services: {
      versions,
      audit,
      access: policies.access,
      apiKeys: apiKeys.service,
      idempotency: idempotency.service,
      idempotencyStep: idempotency.step,
      handlers: {
        ...users.handlers,
        ...policies.handlers,
        ...apiKeys.handlers,
        ...authzen.handlers,
        ...logStreams.handlers,
        ...roles.handlers,
        ...scim.handlers,
      },
      logs: auditLog.logs,
      chain: auditLog.chain,
      redactions: auditLog.redactions,
      search: auditLog.search,
      stats: auditLog.stats,
      exports: auditLog.exports,
    },
    prepare: () => auditLog.prepare(),
    jobs: {
      sealer: auditLog.sealer,
      exportWorker: auditLog.exportWorker,
      logMaintenance: auditLog.maintenance,
      idempotencySweeper: idempotencySweeper(idempotency.service, options.logger),
      streamDeliverer: logStreams.deliverer,
    },
  };
}
