import { ScimError, type ScimPatchOperation, scimPatch } from 'scim-patch';
import { filter, parse } from 'scim2-parse-filter';
import { Invalid, type ScimErrorType } from '../../lib/errors.js';
import {
  attributeNamed,
  checkAttributes,
  checkSubAttributes,
  type ScimSchemaAttributes,
} from './attributes.js';
import type { ScimResource } from './representation.js';

/*
 * PATCH operations are applied by scim-patch (Unlicense, maintained, built on
 * scim2-parse-filter): it implements RFC 7644 §3.5.2 on a resource object, with and without
 * `path`, value filters (`members[value eq "…"]`, `emails[type eq "work"].value`), `remove`
 * with a `value` list (Entra's member removal) and "replace on a missing target is an add".
 * We apply it to the stored resource and turn the difference into the `/v1` change.
 */

const RESERVED = /(^|[.[\]:\s])(__proto__|constructor|prototype)($|[.[\]\s])/;

const invalidPatch = (message: string, scimType: ScimErrorType, field = 'Operations') =>
  new Invalid([{ field, message }], message, scimType);

/** A path may start with its resource's core schema URN (RFC 7644 §3.10). */
const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

/** `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`. */
const PATH_PARTS = /^([^.[]+)(\[[^\]]*\])?(?:\.(.+))?$/;

/**
 * The path with its attribute spelled as the schema spells it (names compare
 * case-insensitively, RFC 7643 §2.1): 400 `invalidPath` outside the schema, `mutability` for a
 * read-only attribute (a PATCH that names one means to change it).
 */
function checkedPath(
  path: string,
  value: unknown,
  schema: ScimSchemaAttributes,
  kind: 'User' | 'Group',
  i: number,
): string {
  const [, head = '', filter = '', sub] = PATH_PARTS.exec(path.replace(CORE_URN, '')) ?? [];
  const found = attributeNamed(head, schema);
  if (!found)
    throw invalidPatch(
      `Operations[${i}].path: ${path} is not an attribute of the ${kind} schema (see /Schemas)`,
      'invalidPath',
    );
  const [name, attribute] = found;
  if (attribute.readOnly)
    throw invalidPatch(`Operations[${i}].path: ${name} is read-only`, 'mutability');
  if (sub !== undefined && !attribute.sub?.includes(sub))
    throw invalidPatch(
      `Operations[${i}].path: ${path} is not an attribute of the ${kind} schema (see /Schemas)`,
      'invalidPath',
    );
  if (sub === undefined && attribute.sub) checkSubAttributes(name, value, attribute.sub, kind);
  return `${name}${filter}${sub !== undefined ? `.${sub}` : ''}`;
}

/** `attr[filter]…`, once `checkedPath` has spelled `attr` as the schema does. */
const VALUE_PATH = /^([^.[]+)\[([^\]]*)\]/;

/**
 * RFC 7644 §3.5.2.3: a `replace` whose value filter selects no value is 400 `noTarget`, not
 * a 200 that changed nothing. A filter that does not parse is left to scim-patch to refuse.
 */
function requireTarget(resource: ScimResource, path: string, i: number): void {
  const [, name, text] = VALUE_PATH.exec(path) ?? [];
  if (name === undefined || text === undefined) return;
  let matches: (value: unknown) => boolean;
  try {
    matches = filter(parse(text));
  } catch {
    return;
  }
  const values = resource[name];
  if (!Array.isArray(values) || !values.some((value) => matches(value)))
    throw invalidPatch(`Operations[${i}].path: ${path} selects no value`, 'noTarget');
}

/** Entra sends `active` as the strings "True"/"False" in some versions: taken as booleans. */
function activeValue(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value))
    return value.toLowerCase() === 'true';
  return value;
}

function normalizeValue(
  value: unknown,
  schema: ScimSchemaAttributes,
  kind: 'User' | 'Group',
): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out = checkAttributes(value as Record<string, unknown>, schema, kind);
  if ('active' in out) out.active = activeValue(out.active);
  return out;
}

/**
 * The resource after `operations`, or 400 with SCIM's `invalidPath`, `mutability`,
 * `noTarget`, `invalidSyntax` or `invalidValue`. The resource given is not changed. An
 * operation without a path may still set a read-only attribute to what it is: the caller
 * compares those before and after.
 */
export function applyPatch(
  resource: ScimResource,
  operations: { op: string; path?: string; value?: unknown }[],
  schema: ScimSchemaAttributes,
  kind: 'User' | 'Group',
): ScimResource {
  const normalized: ScimPatchOperation[] = operations.map((operation, i) => {
    const op = operation.op.toLowerCase() as 'add' | 'replace' | 'remove';
    let path = operation.path?.trim();
    if (path !== undefined) {
      if (path.length === 0) path = undefined;
      else {
        if (RESERVED.test(path))
          throw invalidPatch(`Operations[${i}].path names a reserved key`, 'invalidPath');
        path = checkedPath(path, operation.value, schema, kind, i);
      }
    }
    if (op === 'remove' && path === undefined)
      throw invalidPatch(`Operations[${i}]: remove needs a path`, 'noTarget');
    if (op !== 'remove' && !('value' in operation))
      throw invalidPatch(`Operations[${i}]: ${op} needs a value`, 'invalidValue');
    const value =
      path === undefined
        ? normalizeValue(operation.value, schema, kind)
        : path === 'active'
          ? activeValue(operation.value)
          : operation.value;
    return {
      op,
      ...(path !== undefined ? { path } : {}),
      ...(operation.value !== undefined ? { value } : {}),
    } as ScimPatchOperation;
  });
  try {
    // One operation at a time, so that each value filter is tried on what the ones before it
    // made.
    let patched = resource;
    normalized.forEach((operation, i) => {
      if (operation.op === 'replace' && operation.path !== undefined)
        requireTarget(patched, operation.path, i);
      patched = scimPatch(patched as Parameters<typeof scimPatch>[0], [operation], {
        mutateDocument: false,
        treatMissingAsAdd: true,
      }) as ScimResource;
    });
    return patched;
  } catch (error) {
    if (error instanceof ScimError) {
      const scimType = (error as ScimError & { scimCode?: string }).scimCode;
      throw invalidPatch(
        error.message.slice(0, 300),
        scimType === 'noTarget' || scimType === 'invalidPath' ? scimType : 'invalidSyntax',
      );
    }
    throw error;
  }
}
