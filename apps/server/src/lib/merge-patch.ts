type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 JSON Merge Patch: `null` removes a key, objects merge, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): Json {
  if (!isObject(patch)) return patch as Json;
  const result: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
