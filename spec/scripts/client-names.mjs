// How @secadmin/api-client names an operation's resource method: the group from the tag, the
// method from the operationId. One place for the client's generator and the docs' code samples.

/** Tags whose display name is not the name users look for. */
const GROUP_NAMES = { 'Audit logs': 'logs' };

const camelCase = (words) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
const singular = (noun) => noun.replace(/ies$/, 'y').replace(/s$/, '');

/** `Audit logs` → `logs`, `API keys` → `apiKeys`. */
export const clientGroup = (tag) => GROUP_NAMES[tag] ?? camelCase(tag);

const words = (name) => name.split(/(?=[A-Z])/).map((w) => w.toLowerCase());

/**
 * The operationId without the group's noun: `listUsers` in `users` → `list`,
 * `simulatePolicyBatch` in `policies` → `simulateBatch`, `createApiKey` in `apiKeys` → `create`;
 * `getHealth` in `system` keeps its operationId.
 */
export function clientMethodName(operationId, group) {
  const [verb, ...rest] = words(operationId);
  for (const noun of [words(group), words(singular(group))]) {
    const at = rest.findIndex((_, i) => noun.every((w, j) => rest[i + j] === w));
    if (at === -1) continue;
    const left = [...rest.slice(0, at), ...rest.slice(at + noun.length)];
    return verb + left.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  }
  return operationId;
}

/** `#/components/...` references of a bundled spec, followed to their target. */
export function refResolver(spec) {
  return function resolve(node) {
    if (!node?.$ref) return node;
    return resolve(
      node.$ref
        .slice(2)
        .split('/')
        .reduce((at, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], spec),
    );
  };
}
