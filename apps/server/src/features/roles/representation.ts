import type { components } from '@secadmin/api-types';
import { isoSeconds } from '../../lib/time.js';
import type { RoleRecord } from './model.js';

export function roleDetail(role: RoleRecord): components['schemas']['Role'] {
  return {
    id: role.id,
    name: role.name,
    ...(role.description !== null ? { description: role.description } : {}),
    ...(role.externalId !== null ? { externalId: role.externalId } : {}),
    memberCount: role.memberCount,
    createdAt: isoSeconds(role.createdAt),
    updatedAt: isoSeconds(role.updatedAt),
  };
}
