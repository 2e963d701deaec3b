import type { Role } from '@secadmin/db';

export type RoleRow = Role;

/** A role record with how many users hold it. */
export type RoleRecord = RoleRow & { memberCount: number };
