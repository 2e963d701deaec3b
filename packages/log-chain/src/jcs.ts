/**
 * RFC 8785 JSON Canonicalization Scheme: object keys sorted by UTF-16 code units, no
 * whitespace, numbers in ECMAScript's shortest round-trip form, strings as
 * JSON.stringify writes them. Keys whose value is `undefined` are left out, as in JSON.
 */
export function jcs(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`jcs: ${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((item) => jcs(item ?? null)).join(',')}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`).join(',')}}`;
    }
    default:
      throw new TypeError(`jcs: a ${typeof value} is not a JSON value`);
  }
}
