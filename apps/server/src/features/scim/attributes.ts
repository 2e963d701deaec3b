import { bad } from './lists.js';
import type { ScimResource } from './representation.js';

/**
 * The attributes a resource kind stores, as `/Schemas` advertises them (decisions §15): a name
 * outside them is 400 `invalidPath`, a read-only one 400 `mutability`, never a 200 that drops
 * it. `sub` lists a complex attribute's sub-attributes.
 */
export interface ScimAttribute {
  readOnly?: boolean;
  sub?: readonly string[];
}
export type ScimSchemaAttributes = Readonly<Record<string, ScimAttribute>>;

const META = ['resourceType', 'created', 'lastModified', 'location', 'version'] as const;

const COMMON: ScimSchemaAttributes = {
  schemas: {},
  id: { readOnly: true },
  meta: { readOnly: true, sub: META },
  externalId: {},
};

export const USER_ATTRIBUTES: ScimSchemaAttributes = {
  ...COMMON,
  userName: {},
  name: { sub: ['formatted', 'givenName', 'familyName'] },
  displayName: {},
  emails: { sub: ['value', 'type', 'primary'] },
  active: {},
  password: {},
  groups: { readOnly: true },
  // Not shown: a user's roles change through Groups, with `users:grant`.
  roles: { readOnly: true },
};

export const GROUP_ATTRIBUTES: ScimSchemaAttributes = {
  ...COMMON,
  displayName: {},
  members: { sub: ['value', 'display', '$ref'] },
};

/** Top-level names compare case-insensitively (RFC 7643 §2.1); undefined for none of them. */
export function attributeNamed(
  name: string,
  schema: ScimSchemaAttributes,
): [string, ScimAttribute] | undefined {
  const lower = name.toLowerCase();
  return Object.entries(schema).find(([known]) => known.toLowerCase() === lower);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const outside = (path: string, kind: string) =>
  bad(path, `is not an attribute of the ${kind} schema (see /Schemas)`, 'invalidPath');

/** 400 `invalidPath` for a key of `value` (an object, or an array of them) outside `sub`. */
export function checkSubAttributes(
  name: string,
  value: unknown,
  sub: readonly string[],
  kind: string,
): void {
  for (const item of Array.isArray(value) ? value : [value]) {
    if (!isObject(item)) continue;
    for (const key of Object.keys(item))
      if (!sub.includes(key)) throw outside(`${name}.${key}`, kind);
  }
}

/**
 * The body with its top-level names spelled as the schema spells them; 400 `invalidPath` for
 * an attribute, or a sub-attribute of a writable one, that the schema does not have (another
 * schema's attributes included: nothing of them would be kept).
 */
export function checkAttributes(
  body: Record<string, unknown>,
  schema: ScimSchemaAttributes,
  kind: 'User' | 'Group',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const found = attributeNamed(key, schema);
    if (!found) throw outside(key, kind);
    const [name, attribute] = found;
    if (attribute.sub && !attribute.readOnly) checkSubAttributes(name, value, attribute.sub, kind);
    out[name] = value;
  }
  return out;
}

/**
 * 400 `mutability` for a read-only attribute of a PUT or POST body that would change what is
 * stored. A client may echo what it read: an `id` equal to the resource's, `meta` naming this
 * resource (its timestamps and version are not compared: a copy read earlier is still an echo,
 * and concurrency is `If-Match`'s), `groups` with exactly the user's groups. `roles` is never
 * shown, so any value is a change. `stored` is undefined for a POST, where nothing is stored yet.
 */
export function checkReadOnly(
  body: Record<string, unknown>,
  schema: ScimSchemaAttributes,
  resourceType: 'User' | 'Group',
  stored: ScimResource | undefined,
): void {
  const refuse = (name: string) => bad(name, 'is read-only', 'mutability');
  for (const [name, value] of Object.entries(body)) {
    if (!schema[name]?.readOnly) continue;
    if (name === 'id') {
      if (stored === undefined || value !== stored.id) throw refuse(name);
    } else if (name === 'meta') {
      if (!isObject(value)) throw refuse(name);
      checkSubAttributes(name, value, META, resourceType);
      if (value.resourceType !== undefined && value.resourceType !== resourceType)
        throw refuse('meta.resourceType');
      if (value.location !== undefined && value.location !== stored?.meta.location)
        throw refuse('meta.location');
    } else if (name === 'groups') {
      const held = new Set<string>((stored?.groups ?? []).map((g: { value: string }) => g.value));
      const given = Array.isArray(value)
        ? new Set(value.map((g) => (isObject(g) ? g.value : undefined)))
        : undefined;
      if (!given || given.size !== held.size || [...given].some((v) => !held.has(v as string)))
        throw refuse(name);
    } else throw refuse(name);
  }
}
