import type { Database } from '@secadmin/db';
import { AccessService } from './access-service.js';
import { ApiKeysService } from './api-keys-service.js';
import { type AuditWriter, auditWriter } from './audit.js';
import { ExportsService, type ExportsServiceOptions } from './exports-service.js';
import { LogsService } from './logs-service.js';
import { PoliciesService } from './policies-service.js';
import { SearchService } from './search-service.js';
import { UsersService } from './users-service.js';

export interface Services {
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
  return {
    audit: auditWriter,
    access: new AccessService(prisma, query),
    apiKeys: new ApiKeysService(prisma, query, auditWriter),
    users: new UsersService(prisma, query, auditWriter),
    policies: new PoliciesService(prisma, auditWriter),
    logs: new LogsService(prisma),
    search: new SearchService(prisma),
    exports: new ExportsService(prisma, auditWriter, exportOptions),
  };
}
