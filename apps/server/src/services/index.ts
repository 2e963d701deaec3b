import { Cursors } from '../lib/cursor.js';
import type { Store } from '../repositories/index.js';
import { AccessService } from './access-service.js';
import { ApiKeysService } from './api-keys-service.js';
import { type AuditWriter, createAuditWriter } from './audit.js';
import { ExportsService, type ExportsServiceOptions } from './exports-service.js';
import { LogsService } from './logs-service.js';
import { PoliciesService } from './policies-service.js';
import { SearchService } from './search-service.js';
import { StateVersionsSource } from './state-versions.js';
import { UsersService } from './users-service.js';

export interface Services {
  versions: StateVersionsSource;
  audit: AuditWriter;
  access: AccessService;
  apiKeys: ApiKeysService;
  users: UsersService;
  policies: PoliciesService;
  logs: LogsService;
  search: SearchService;
  exports: ExportsService;
}

export interface ServicesOptions extends ExportsServiceOptions {
  /** The embedded database: this process is its only writer (decides state-version reads). */
  soleWriter: boolean;
}

export function createServices(store: Store, options: ServicesOptions): Services {
  const versions = new StateVersionsSource(store, options.soleWriter);
  const cursors = new Cursors(options.secret);
  const audit = createAuditWriter(store);
  const access = new AccessService(store, () => versions.current());
  return {
    versions,
    audit,
    access,
    apiKeys: new ApiKeysService(store, audit, versions, cursors),
    users: new UsersService(store, audit, versions, cursors, access),
    policies: new PoliciesService(store, audit, versions, cursors),
    logs: new LogsService(store, cursors),
    search: new SearchService(store, cursors),
    exports: new ExportsService(store, audit, options),
  };
}
