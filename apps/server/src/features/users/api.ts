export type { UserRow } from './model.js';
export type { UsersService } from './service.js';
