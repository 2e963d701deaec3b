import { entityTag } from '../../lib/etag.js';
import { isoSeconds } from '../../lib/time.js';
import type { RoleRecord } from '../roles/api.js';
import type { UserRow } from '../users/api.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

// biome-ignore lint/suspicious/noExplicitAny: SCIM resources are open JSON objects
export type ScimResource = Record<string, any>;

/** `givenName` and `familyName` as SCIM last sent them (kept in the user's `metadata.scim`). */
export function scimNameParts(metadata: unknown): { givenName?: string; familyName?: string } {
  const scim = (metadata as { scim?: unknown } | null)?.scim;
  if (!scim || typeof scim !== 'object') return {};
  const { givenName, familyName } = scim as Record<string, unknown>;
  return {
    ...(typeof givenName === 'string' ? { givenName } : {}),
    ...(typeof familyName === 'string' ? { familyName } : {}),
  };
}

export function scimUser(
  user: UserRow,
  groups: { id: string; name: string }[],
  base: string,
): ScimResource {
  return {
    schemas: [USER_SCHEMA],
    id: user.id,
    ...(user.externalId !== null ? { externalId: user.externalId } : {}),
    userName: user.email,
    name: { formatted: user.name, ...scimNameParts(user.metadata) },
    displayName: user.name,
    emails: [{ value: user.email, type: 'work', primary: true }],
    active: user.active,
    groups: groups.map((g) => ({ value: g.id, display: g.name, $ref: `${base}/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: isoSeconds(user.createdAt),
      lastModified: isoSeconds(user.updatedAt),
      location: `${base}/Users/${user.id}`,
      version: entityTag(user),
    },
  };
}

export function scimGroup(
  role: RoleRecord | Omit<RoleRecord, 'memberCount'>,
  members: { id: string }[] | undefined,
  base: string,
): ScimResource {
  return {
    schemas: [GROUP_SCHEMA],
    id: role.id,
    ...(role.externalId !== null ? { externalId: role.externalId } : {}),
    displayName: role.name,
    ...(members
      ? {
          // No `display`: a member's email is for keys that may read users, not roles.
          members: members.map((m) => ({ value: m.id, $ref: `${base}/Users/${m.id}` })),
        }
      : {}),
    meta: {
      resourceType: 'Group',
      created: isoSeconds(role.createdAt),
      lastModified: isoSeconds(role.updatedAt),
      location: `${base}/Groups/${role.id}`,
      version: entityTag(role),
    },
  };
}

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5), split and lowercased. */
export interface Projection {
  attributes?: string[];
  excluded?: string[];
}

export function projection(query: {
  attributes?: string;
  excludedAttributes?: string;
}): Projection {
  const split = (text: string | undefined) =>
    text
      ?.split(',')
      .map((a) =>
        a
          .trim()
          .toLowerCase()
          .replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/, ''),
      )
      .filter((a) => a.length > 0);
  const attributes = split(query.attributes);
  const excluded = split(query.excludedAttributes);
  return {
    ...(attributes?.length ? { attributes } : {}),
    ...(excluded?.length ? { excluded } : {}),
  };
}

/** Whether a projection leaves an attribute (`members`) out, so it need not be read. */
export function leavesOut(p: Projection, attribute: string): boolean {
  if (p.attributes)
    return !p.attributes.some((a) => a === attribute || a.startsWith(`${attribute}.`));
  return p.excluded?.includes(attribute) ?? false;
}

const ALWAYS = new Set(['schemas', 'id']);

/** The resource with only the attributes asked (top level and one sub-attribute level). */
export function project(resource: ScimResource, p: Projection): ScimResource {
  if (!p.attributes && !p.excluded) return resource;
  const out: ScimResource = {};
  for (const [key, value] of Object.entries(resource)) {
    const name = key.toLowerCase();
    if (ALWAYS.has(name)) {
      out[key] = value;
      continue;
    }
    if (p.attributes) {
      if (p.attributes.includes(name)) out[key] = value;
      else {
        const subs = p.attributes
          .filter((a) => a.startsWith(`${name}.`))
          .map((a) => a.slice(name.length + 1));
        if (subs.length > 0 && value && typeof value === 'object' && !Array.isArray(value))
          out[key] = Object.fromEntries(
            Object.entries(value).filter(([k]) => subs.includes(k.toLowerCase())),
          );
        else if (subs.length > 0 && Array.isArray(value))
          out[key] = value.map((item) =>
            Object.fromEntries(
              Object.entries(item).filter(([k]) => subs.includes(k.toLowerCase())),
            ),
          );
      }
    } else if (!p.excluded?.includes(name)) out[key] = value;
  }
  return out;
}
