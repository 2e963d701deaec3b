import { Cursors } from '../lib/cursor.js';
import type { DomainCounters } from '../metrics.js';
import type { Store } from '../storage/repositories.js';
import { StateVersionsSource } from '../storage/state-versions.js';
import { ApiKeysService } from './api-keys/service.js';
import { type AuditWriter, createAuditWriter } from './audit-log/audit-writer.js';
import { ChainService } from './audit-log/chain/service.js';
import type { SigningKey } from './audit-log/chain/signing-key.js';
import { LogsService } from './audit-log/entries/service.js';
import { ExportsService, type ExportsServiceOptions } from './audit-log/exports/service.js';
import { SearchService } from './audit-log/search/service.js';
import { IdempotencyService } from './idempotency/service.js';
import { AccessService } from './policies/access-service.js';
import { PoliciesService } from './policies/service.js';
import { SimulationService } from './policies/simulation.js';
import { UsersService } from './users/service.js';

export interface Services {
  versions: StateVersionsSource;
  audit: AuditWriter;
  access: AccessService;
  apiKeys: ApiKeysService;
  users: UsersService;
  policies: PoliciesService;
  simulation: SimulationService;
  logs: LogsService;
  chain: ChainService;
  search: SearchService;
  exports: ExportsService;
  idempotency: IdempotencyService;
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

export function createServices(store: Store, options: ServicesOptions): Services {
  const versions = new StateVersionsSource(store, options.soleWriter, () => store.inTransaction());
  const cursors = new Cursors(options.secret);
  const audit = createAuditWriter(store);
  const access = new AccessService(store, () => versions.current(), options.counters);
  const idempotency = new IdempotencyService(store, options.secret, options.maxKeptBytes);
  return {
    versions,
    audit,
    access,
    apiKeys: new ApiKeysService(store, audit, versions, cursors, idempotency),
    users: new UsersService(store, audit, versions, cursors, access, idempotency),
    policies: new PoliciesService(store, audit, versions, cursors),
    simulation: new SimulationService(access),
    logs: new LogsService(store, cursors, options.counters, options.onIngested),
    chain: new ChainService(store, cursors, options.signingKey),
    search: new SearchService(store, cursors),
    exports: new ExportsService(store, audit, options),
    idempotency,
  };
}
