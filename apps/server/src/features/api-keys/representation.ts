import type { components } from '@secadmin/api-types';
import { isoSeconds } from '../../lib/time.js';
import type { ApiKeyRow } from './model.js';

type Schemas = components['schemas'];

export function apiKey(row: ApiKeyRow): Schemas['ApiKey'] {
  return {
    id: row.id,
    name: row.name,
    principal: row.principal,
    plan: row.plan as Schemas['Plan'],
    rateLimitPerMinute: row.rateLimitPerMinute,
    ...(row.expiresAt ? { expiresAt: isoSeconds(row.expiresAt) } : {}),
    createdAt: isoSeconds(row.createdAt),
  };
}
