import { ScimError, type ScimPatchOperation, scimPatch } from 'scim-patch';
import { Invalid, type ScimErrorType } from '../../lib/errors.js';
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

/** Top-level attribute names case-insensitively, as RFC 7643 §2.1 wants them compared. */
function canonical(name: string, known: readonly string[]): string {
  return known.find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

/** Entra sends `active` as the strings "True"/"False" in some versions: taken as booleans. */
function activeValue(value: unknown): unknown {
  if (typeof value === 'string' && /^(true|false)$/i.test(value))
    return value.toLowerCase() === 'true';
  return value;
}

function normalizeValue(value: unknown, known: readonly string[]): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const name = canonical(key, known);
    out[name] = name === 'active' ? activeValue(inner) : inner;
  }
  return out;
}

/**
 * The resource after `operations`, or 400 with SCIM's `invalidPath`, `noTarget`,
 * `invalidSyntax` or `invalidValue`. The resource given is not changed.
 */
export function applyPatch(
  resource: ScimResource,
  operations: { op: string; path?: string; value?: unknown }[],
  known: readonly string[],
): ScimResource {
  const normalized: ScimPatchOperation[] = operations.map((operation, i) => {
    const op = operation.op.toLowerCase() as 'add' | 'replace' | 'remove';
    let path = operation.path?.trim();
    if (path !== undefined) {
      if (path.length === 0) path = undefined;
      else {
        if (RESERVED.test(path))
          throw invalidPatch(`Operations[${i}].path names a reserved key`, 'invalidPath');
        const [head = '', ...rest] = path.split(/(?=[.[])/);
        path = canonical(head, known) + rest.join('');
      }
    }
    if (op === 'remove' && path === undefined)
      throw invalidPatch(`Operations[${i}]: remove needs a path`, 'noTarget');
    if (op !== 'remove' && !('value' in operation))
      throw invalidPatch(`Operations[${i}]: ${op} needs a value`, 'invalidValue');
    const value =
      path === undefined
        ? normalizeValue(operation.value, known)
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
    return scimPatch(resource as Parameters<typeof scimPatch>[0], normalized, {
      mutateDocument: false,
      treatMissingAsAdd: true,
    }) as ScimResource;
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
