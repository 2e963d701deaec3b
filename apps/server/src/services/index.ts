import type { Database } from '@secadmin/db';
import { shareFreshReads } from '../lib/fresh-reads.js';
import {
  readStateVersions,
  type StateVersions,
} from '../repositories/state-versions-repository.js';
import { AccessService } from './access-service.js';
import { ApiKeysService } from './api-keys-service.js';
import { type AuditWriter, auditWriter } from './audit.js';
import { ExportsService, type ExportsServiceOptions } from './exports-service.js';
import { LogsService } from './logs-service.js';
import { PoliciesService } from './policies-service.js';
import { SearchService } from './search-service.js';
import { UsersService } from './users-service.js';

export interface Services {
  /** The state versions as of a read that started after the call (shared under load). */
  currentVersions: () => Promise<StateVersions>;
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
  const currentVersions = shareFreshReads(() => readStateVersions(query));
  return {
    currentVersions,
    audit: auditWriter,
    access: new AccessService(prisma, query, currentVersions),
    apiKeys: new ApiKeysService(prisma, query, auditWriter),
    users: new UsersService(prisma, query, auditWriter),
    policies: new PoliciesService(prisma, auditWriter),
    logs: new LogsService(prisma, query),
    search: new SearchService(prisma, query),
    exports: new ExportsService(prisma, auditWriter, exportOptions),
  };
}
