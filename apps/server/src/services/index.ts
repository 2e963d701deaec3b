import type { Database } from '@secadmin/db';
import { Cursors } from '../lib/cursor.js';
import { AccessService } from './access-service.js';
import { ApiKeysService } from './api-keys-service.js';
import { type AuditWriter, auditWriter } from './audit.js';
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

export function createServices(db: Database, exportOptions: ExportsServiceOptions): Services {
  const { prisma, query } = db;
  const versions = new StateVersionsSource(query, db.kind === 'embedded');
  const cursors = new Cursors(exportOptions.secret);
  const access = new AccessService(prisma, query, () => versions.current());
  return {
    versions,
    audit: auditWriter,
    access,
    apiKeys: new ApiKeysService(prisma, query, auditWriter, versions, cursors),
    users: new UsersService(prisma, query, auditWriter, versions, cursors, access),
    policies: new PoliciesService(prisma, auditWriter, versions, cursors),
    logs: new LogsService(prisma, query, cursors),
    search: new SearchService(prisma, query, cursors),
    exports: new ExportsService(prisma, auditWriter, exportOptions),
  };
}
