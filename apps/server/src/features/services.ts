import type { RequestActor } from '../lib/actor.js';
import { Cursors } from '../lib/cursor.js';
import type { DomainCounters } from '../metrics.js';
import type { Store } from '../storage/repositories.js';
import { StateVersionsRepository, StateVersionsSource } from '../storage/state-versions.js';
import { type ApiKeysService, createApiKeys } from './api-keys/index.js';
import { type AuditRecord, type AuditWriter, createAuditWriter } from './audit-log/audit-writer.js';
import { ChainService } from './audit-log/chain/service.js';
import type { SigningKey } from './audit-log/chain/signing-key.js';
import { LogsService } from './audit-log/entries/service.js';
import { ExportsService, type ExportsServiceOptions } from './audit-log/exports/service.js';
import { SearchService } from './audit-log/search/service.js';
import { createIdempotency, type IdempotencyService } from './idempotency/index.js';
import { type Access, createPolicies } from './policies/index.js';
import { createUsers } from './users/index.js';

export interface Services {
  versions: StateVersionsSource;
  audit: AuditWriter;
  access: Access;
  apiKeys: ApiKeysService;
  idempotency: IdempotencyService;
  /** The dispatch step of writes sent with an `Idempotency-Key`. */
  idempotencyStep: ReturnType<typeof createIdempotency>['step'];
  /** The operations of users, policies and API keys. */
  handlers: ReturnType<typeof createUsers>['handlers'] &
    ReturnType<typeof createPolicies>['handlers'] &
    ReturnType<typeof createApiKeys>['handlers'];
  logs: LogsService;
  chain: ChainService;
  search: SearchService;
  exports: ExportsService;
}

export interface ServicesOptions extends ExportsServiceOptions {
  /** The embedded database: this process is its only writer (decides state-version reads). */
  soleWriter: boolean;
  counters?: DomainCounters;
  signingKey: Pick<SigningKey, 'publicKeyPem' | 'fingerprint'>;
  /** The most bytes of kept idempotent responses per API key (docs/idempotency.md). */
  maxKeptBytes?: number;
  /** Entries were ingested: the sealer need not wait for its next poll. */
  onIngested?: () => void;
}

/** The composition root: the one place that knows every feature, and wires each to the others. */
export function createServices(store: Store, options: ServicesOptions): Services {
  const versions = new StateVersionsSource(
    new StateVersionsRepository(store.connection),
    options.soleWriter,
    () => store.inTransaction(),
  );
  const cursors = new Cursors(options.secret);
  const audit = createAuditWriter(store);
  // The store's own audit-log repositories join whatever transaction is open.
  const trail = {
    record: (actor: RequestActor, change: AuditRecord) => audit.record(store, actor, change),
  };
  const idempotency = createIdempotency(store, {
    secret: options.secret,
    maxKeptBytes: options.maxKeptBytes,
  });
  // Users depends on api keys and policies, which reach back into users only when called.
  const policies = createPolicies({
    store,
    versions,
    audit: trail,
    cursors,
    userRoles: (userId) => users.service.roles(userId),
    currentVersions: () => versions.current(),
    counters: options.counters,
  });
  const apiKeys = createApiKeys({
    store,
    versions,
    audit: trail,
    cursors,
    keptResponses: idempotency.service,
    userExists: (userId) => users.service.exists(userId),
  });
  const users = createUsers({
    store,
    versions,
    audit: trail,
    cursors,
    access: policies.access,
    apiKeys: apiKeys.service,
    policies: policies.policies,
    logs: { redactUser: (userId, email) => store.logs.redactUser(userId, email) },
    keptResponses: idempotency.service,
  });
  return {
    versions,
    audit,
    access: policies.access,
    apiKeys: apiKeys.service,
    idempotency: idempotency.service,
    idempotencyStep: idempotency.step,
    handlers: { ...users.handlers, ...policies.handlers, ...apiKeys.handlers },
    logs: new LogsService(store, cursors, options.counters, options.onIngested),
    chain: new ChainService(store, cursors, options.signingKey),
    search: new SearchService(store, cursors),
    exports: new ExportsService(store, audit, options),
  };
}
