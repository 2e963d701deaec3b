export type { RoleRecord, RolesService } from './service.js';
