// The part of served-from.mjs that runs in the page (inlined there with toString(): it may use
// nothing but its arguments and the browser's globals).

/** Runs in the page: the definition with `defaultBase` replaced by where the page was served. */
export function servedFrom(definition, defaultBase) {
  const prefix = location.pathname.replace(/\/docs\/?$/, '');
  const served =
    /^https?:$/.test(location.protocol) &&
    prefix !== location.pathname &&
    // Only plain path segments: the address is pasted into shell-quoted samples.
    /^(\/[\w.~-]+)*$/.test(prefix);
  if (!served) return definition;
  const base = location.origin + prefix;
  const rewrite = (value) => {
    if (typeof value === 'string') return value.replaceAll(defaultBase, base);
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, rewrite(v)]));
  };
  return rewrite(definition);
}
