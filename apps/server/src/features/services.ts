import type { Logger } from 'pino';
import { Cursors } from '../lib/cursor.js';
import type { Job } from '../lib/poll-loop.js';
import type { DomainCounters } from '../metrics.js';
import type { Store } from '../storage/repositories.js';
import { StateVersionsSource } from '../storage/state-versions.js';
import { ApiKeysService } from './api-keys/service.js';
import {
  type AuditLog,
  type AuditLogApi,
  type AuditLogOptions,
  createAuditLog,
} from './audit-log/index.js';
import { IdempotencyService, idempotencySweeper } from './idempotency/index.js';
import { AccessService } from './policies/access-service.js';
import { PoliciesService } from './policies/service.js';
import { SimulationService } from './policies/simulation.js';
import { UsersService } from './users/service.js';

export interface Services {
  versions: StateVersionsSource;
  audit: AuditLogApi;
  access: AccessService;
  apiKeys: ApiKeysService;
  users: UsersService;
  policies: PoliciesService;
  simulation: SimulationService;
  logs: AuditLog['logs'];
  chain: AuditLog['chain'];
  search: AuditLog['search'];
  exports: AuditLog['exports'];
  idempotency: IdempotencyService;
}

export interface ServicesOptions {
  secret: string;
  /** The embedded database: this process is its only writer (decides state-version reads). */
  soleWriter: boolean;
  counters?: DomainCounters;
  logger: Logger;
  /** The most bytes of kept idempotent responses per API key (docs/idempotency.md). */
  maxKeptBytes?: number;
  auditLog: Omit<AuditLogOptions, 'cursors' | 'secret' | 'counters' | 'logger'>;
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
  };
}

export function createServices(store: Store, options: ServicesOptions): Composition {
  const versions = new StateVersionsSource(store, options.soleWriter, () => store.inTransaction());
  const cursors = new Cursors(options.secret);
  const auditLog = createAuditLog(store, {
    ...options.auditLog,
    cursors,
    secret: options.secret,
    logger: options.logger,
    ...(options.counters ? { counters: options.counters } : {}),
  });
  const audit = auditLog.api;
  const access = new AccessService(store, () => versions.current(), options.counters);
  const idempotency = new IdempotencyService(store, options.secret, options.maxKeptBytes);
  return {
    services: {
      versions,
      audit,
      access,
      apiKeys: new ApiKeysService(store, audit, versions, cursors, idempotency),
      users: new UsersService(store, audit, versions, cursors, access, idempotency),
      policies: new PoliciesService(store, audit, versions, cursors),
      simulation: new SimulationService(access),
      logs: auditLog.logs,
      chain: auditLog.chain,
      search: auditLog.search,
      exports: auditLog.exports,
      idempotency,
    },
    prepare: () => auditLog.prepare(),
    jobs: {
      sealer: auditLog.sealer,
      exportWorker: auditLog.exportWorker,
      logMaintenance: auditLog.maintenance,
      idempotencySweeper: idempotencySweeper(idempotency, options.logger),
    },
  };
}
