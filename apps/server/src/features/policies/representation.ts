import type { components } from '@secadmin/api-types';
import { isoSeconds } from '../../lib/time.js';
import type { PolicyRow } from './model.js';

type Schemas = components['schemas'];

export function policyDetail(row: PolicyRow): Schemas['Policy'] {
  return {
    id: row.id,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    effect: row.effect as Schemas['Policy']['effect'],
    principals: row.principals,
    actions: row.actions,
    resources: row.resources,
    ...(row.conditions !== null
      ? { conditions: row.conditions as Schemas['PolicyConditions'] }
      : {}),
    createdAt: isoSeconds(row.createdAt),
    updatedAt: isoSeconds(row.updatedAt),
  };
}

export function policyListItem(row: PolicyRow): Schemas['PolicyListItem'] {
  return {
    id: row.id,
    name: row.name,
    effect: row.effect as Schemas['Policy']['effect'],
    principals: row.principals,
    actions: row.actions,
    resources: row.resources,
    createdAt: isoSeconds(row.createdAt),
  };
}
