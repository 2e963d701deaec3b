export type { UserRow } from './repository.js';
export type { UsersService } from './service.js';
