import type { components } from '@secadmin/api-types';
import { isoSeconds } from '../../lib/time.js';
import type { UserRow } from './model.js';

type Schemas = components['schemas'];

export function userDetail(row: UserRow): Schemas['User'] {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    emailVerified: row.emailVerified,
    active: row.active,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    roles: row.roles,
    metadata: row.metadata as Record<string, unknown>,
    createdAt: isoSeconds(row.createdAt),
    updatedAt: isoSeconds(row.updatedAt),
  };
}

export function userListItem(row: UserRow): Schemas['UserListItem'] {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    createdAt: isoSeconds(row.createdAt),
    roles: row.roles,
    active: row.active,
  };
}
