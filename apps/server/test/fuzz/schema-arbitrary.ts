import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes of the bundled spec
export type Schema = Record<string, any>;

/** Follows `#/components/...` references of the bundled spec. */
export function resolver(spec: Schema) {
  return function resolve(schema: Schema): Schema {
    if (typeof schema?.$ref !== 'string') return schema;
    const path = (schema.$ref as string).replace(/^#\//, '').split('/');
    return resolve(
      path.reduce((node: Schema, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec),
    );
  };
}

const ISO = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2030-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

/**
 * fast-check cannot generate from lookaheads (`(?=…)`, `(?!…)`): generate from the pattern
 * without them, and keep what the whole pattern accepts.
 */
function withoutLookaheads(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) {
      let depth = 0;
      for (; i < source.length; i++) {
        if (source[i] === '\\') i++;
        else if (source[i] === '(') depth++;
        else if (source[i] === ')' && --depth === 0) break;
      }
    } else {
      if (source[i] === '\\') out += source[i++];
      out += source[i];
    }
  }
  return out;
}

/** Values that satisfy the schema (as far as fast-check can aim: patterns, bounds, enums). */
export function validArbitrary(spec: Schema, node: Schema, depth = 0): fc.Arbitrary<unknown> {
  const resolve = resolver(spec);
  const schema = resolve(node);
  if (schema.oneOf)
    return fc.oneof(...(schema.oneOf as Schema[]).map((s) => validArbitrary(spec, s, depth + 1)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string': {
      if (schema.format === 'date-time' || /\\d\{4\}-/.test(schema.pattern ?? '')) return ISO;
      if (schema.format === 'email')
        return fc
          .emailAddress()
          .filter(
            (e) =>
              e.length <= (schema.maxLength ?? 254) &&
              (!schema.pattern || new RegExp(schema.pattern as string).test(e)),
          );
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 40, 40);
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern as string);
        return fc
          .stringMatching(new RegExp(withoutLookaheads(schema.pattern as string)))
          .filter((s) => s.length >= min && s.length <= (schema.maxLength ?? 1e9))
          .filter((s) => pattern.test(s));
      }
      return fc.string({ minLength: min, maxLength: Math.max(min, max) });
    }
    case 'array': {
      const maxItems = Math.min(schema.maxItems ?? 3, 3);
      const items = validArbitrary(spec, schema.items ?? {}, depth + 1);
      return fc.array(items, {
        minLength: Math.min(schema.minItems ?? 0, maxItems),
        maxLength: Math.max(schema.minItems ?? 0, maxItems),
      });
    }
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0 || depth > 4) {
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }),
          fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()),
          {
            maxKeys: 3,
          },
        );
      }
      const required = new Set<string>((schema.required ?? []) as string[]);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties))
        shape[key] = validArbitrary(spec, value, depth + 1);
      return fc.record(shape, { requiredKeys: [...required] });
    }
  }
}

const INJECTIONS = [
  "'; DROP TABLE users; --",
  '" OR 1=1 --',
  '<script>alert(1)</script>',
  '${7*7}',
  '../../etc/passwd',
  '\u0000',
  '\uD800',
  'ﬁ\u202E\u200B',
  '%00%ff',
  '{{constructor.constructor("return process")()}}',
];

/** A value that a schema of this kind must refuse, or an attack string. */
export const hostileValue = fc.oneof(
  fc.constantFrom(...INJECTIONS),
  fc.constantFrom(null, true, 1e308, -1e308, 2 ** 63, [], {}, '', 'x'.repeat(5000)),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** The type names a schema accepts, through `oneOf`, `anyOf` and `enum`. */
function acceptedTypes(spec: Schema, node: Schema): Set<string> {
  const schema = resolver(spec)(node);
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return new Set(alternatives.flatMap((s) => [...acceptedTypes(spec, s)]));
  const all = schema.allOf as Schema[] | undefined;
  if (all)
    return all
      .map((s) => acceptedTypes(spec, s))
      .reduce((both, types) => new Set([...both].filter((type) => types.has(type))));
  if (schema.enum) return new Set((schema.enum as unknown[]).map(jsonType));
  if (schema.type === undefined)
    return new Set(['string', 'integer', 'number', 'boolean', 'null', 'array', 'object']);
  const types = new Set([schema.type].flat() as string[]);
  if (types.has('number')) types.add('integer');
  return types;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Every JSON type but the schema's own, including the ones a lenient validator would coerce. */
const CANDIDATES: unknown[] = [
  42,
  1.5,
  '5',
  'false',
  'true',
  true,
  false,
  null,
  [],
  {},
  [1],
  { a: 1 },
];

export function wrongTypeValues(spec: Schema, node: Schema): unknown[] {
  const accepted = acceptedTypes(spec, node);
  return CANDIDATES.filter((value) => !accepted.has(jsonType(value)));
}

/**
 * The fields of a request body schema with fixed properties, by dotted path (array items as
 * `[0]`), down to free-form objects, which are fields themselves.
 */
export function bodyFields(
  spec: Schema,
  node: Schema,
  prefix = '',
): { path: string; schema: Schema }[] {
  const resolve = resolver(spec);
  const schema = resolve(node);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const fields: { path: string; schema: Schema }[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const child = resolve(value);
    fields.push({ path, schema: child });
    if (child.type === 'object') fields.push(...bodyFields(spec, child, path));
    if (child.type === 'array' && resolve(child.items ?? {}).type === 'object')
      fields.push(...bodyFields(spec, child.items, `${path}[0]`));
  }
  return fields;
}

/** A copy of `body` with the value at a dotted path (`a.b[0].c`) set, creating what is missing. */
export function setAt(
  body: Record<string, unknown>,
  path: string,
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split(/\.|(?=\[)/).map((k) => (k.startsWith('[') ? Number(k.slice(1, -1)) : k));
  // biome-ignore lint/suspicious/noExplicitAny: walking arbitrary JSON
  let node: any = copy;
  for (const [i, key] of keys.entries()) {
    if (i === keys.length - 1) node[key] = value;
    else {
      const next = keys[i + 1];
      if (node[key] === null || typeof node[key] !== 'object')
        node[key] = typeof next === 'number' ? [{}] : {};
      node = node[key];
    }
  }
  return copy;
}
