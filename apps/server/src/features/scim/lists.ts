import { Invalid } from '../../lib/errors.js';
import type { ScimResource } from './representation.js';

/** RFC 7644 §3.4.2.4 lets a server return fewer than asked: at most this many a page. */
export const MAX_COUNT = 200;
const DEFAULT_COUNT = 100;

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
}

/** `startIndex` below 1 counts as 1; `count` is capped at `MAX_COUNT`. */
export function paging(query: ListQuery) {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? DEFAULT_COUNT));
  return { startIndex, count };
}

export function listResponse(total: number, startIndex: number, resources: ScimResource[]) {
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** A 400 naming the SCIM attribute, of SCIM's kind. */
export const bad = (
  field: string,
  message: string,
  scimType: 'invalidValue' | 'mutability' | 'invalidPath' = 'invalidValue',
) => new Invalid([{ field, message }], `${field}: ${message}`, scimType);
