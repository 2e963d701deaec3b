export type { RoleRecord } from './model.js';
export type { RolesService } from './service.js';
