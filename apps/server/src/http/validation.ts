import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ApiError, type ErrorDetail } from './errors.js';
import type { Operation, Spec } from './operations.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema nodes of the bundled spec
type Schema = Record<string, any>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema: Schema;
}

/** A request's inputs once validated: path parameters, typed query values (defaults filled in), body. */
export interface ValidInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * Query values are strings; typed ones are accepted in their plain form only
 * (docs/errors.md): `10`, not `0x10`, `1e1`, `10.0`, `+10` or ` 10`; `true`/`false`, not `1` or `yes`.
 */
const PLAIN_FORMS: Record<
  string,
  { pattern: RegExp; parse: (text: string) => unknown; message: string }
> = {
  integer: {
    pattern: /^-?(0|[1-9][0-9]*)$/,
    parse: Number,
    message: 'must be an integer in plain decimal',
  },
  number: {
    pattern: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/,
    parse: Number,
    message: 'must be a plain decimal number',
  },
  boolean: {
    pattern: /^(true|false)$/,
    parse: (text) => text === 'true',
    message: 'must be true or false',
  },
};

/** `/entries/0/event` under `body` → `body.entries[0].event`. */
function fieldName(location: string, pointer: string): string {
  return (
    location +
    pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')
  );
}

/** Enough to fix a request with; a response never grows with the size of a hostile body. */
const MAX_DETAILS = 50;

function detailsOf(location: string, errors: ErrorObject[] | null | undefined): ErrorDetail[] {
  return (errors ?? []).slice(0, MAX_DETAILS).map((error) => detailOf(location, error));
}

function detailOf(location: string, error: ErrorObject): ErrorDetail {
  const params = error.params as Record<string, unknown>;
  const named = params.missingProperty ?? params.additionalProperty ?? params.propertyName;
  const pointer = named === undefined ? error.instancePath : `${error.instancePath}/${named}`;
  const allowed = params.allowedValues as unknown[] | undefined;
  // A pattern's own words (`x-secadmin-pattern-message`) say more than the regular expression.
  const patternMessage =
    error.keyword === 'pattern'
      ? (error.parentSchema?.['x-secadmin-pattern-message'] as string | undefined)
      : undefined;
  return {
    field: fieldName(location, pointer),
    message:
      error.keyword === 'additionalProperties'
        ? 'is not allowed'
        : (patternMessage ??
          `${error.message ?? 'is invalid'}${allowed ? `: ${allowed.join(', ')}` : ''}`),
  };
}

/**
 * An operation's own checks of a body, beyond what its schema says, for a body the schema
 * refused: so that one answer names every problem, not the schema's first and the rest on the
 * next try. `faulty(field)` (a body field, as `conditions` or `items[0].conditions`) says
 * whether the schema found a fault in or under it; a check looks only at parts without one, so
 * it never sees a shape the schema did not allow. Fields of its problems are relative to the
 * body. A body the schema accepts is checked by the operation itself.
 */
export type BodyCheck = (
  body: unknown,
  faulty: (field: string) => boolean,
) => { field: string; message: string }[];

const invalidRequest = (details: ErrorDetail[]) =>
  new ApiError('invalid_request', 'The request is invalid.', details);

function compiledOnce<T>(kept: Map<string, T>, operation: Operation, compile: () => T): T {
  let validator = kept.get(operation.id);
  if (!validator) {
    validator = compile();
    kept.set(operation.id, validator);
  }
  return validator;
}

/**
 * Compiles, once per operation on its first use, what it accepts (parameters and JSON body)
 * and, for tests, what it may answer. JSON values are never converted: a `"5"` where an integer goes
 * is a 400.
 */
export class SpecValidator {
  private readonly ajv: Ajv2020;
  private readonly components: Spec['components'];
  private readonly requests = new Map<string, (input: ValidInput) => ValidInput>();
  private readonly responses = new Map<string, (status: number, body: unknown) => ErrorDetail[]>();

  constructor(
    spec: Spec,
    /** By operation id. */
    private readonly bodyChecks: Readonly<Record<string, BodyCheck>> = {},
  ) {
    this.components = spec.components;
    this.ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      useDefaults: true,
      coerceTypes: false,
      // Errors carry their schema, for `x-secadmin-pattern-message`.
      verbose: true,
    });
    addFormats.default(this.ajv);
    // Component references resolve against the spec's own components.
    this.ajv.addSchema({ $id: 'spec', components: spec.components }, undefined, undefined, false);
  }

  private compile(schema: Schema): ValidateFunction {
    return this.ajv.compile(relocateRefs(schema));
  }

  /** The validator of one operation's request, compiled on first use. */
  requestValidator(operation: Operation): (input: ValidInput) => ValidInput {
    return compiledOnce(this.requests, operation, () => this.compileRequest(operation));
  }

  /** What each status of an operation may answer with a JSON body (tests), compiled on first use. */
  responseValidator(operation: Operation): (status: number, body: unknown) => ErrorDetail[] {
    return compiledOnce(this.responses, operation, () => this.compileResponses(operation));
  }

  private compileRequest(operation: Operation): (input: ValidInput) => ValidInput {
    const parameters = (operation.spec.parameters as Parameter[]).map((p) =>
      (p as Schema).$ref ? this.resolveParameter((p as Schema).$ref) : p,
    );
    const pathParameters = parameters.filter((p) => p.in === 'path');
    const queryParameters = parameters.filter((p) => p.in === 'query');
    const params = this.compile(objectOf(pathParameters));
    const query = this.compile(objectOf(queryParameters));
    const requestBody = (operation.spec.requestBody as Schema | undefined)?.content?.[
      'application/json'
    ];
    const bodyRequired = (operation.spec.requestBody as Schema | undefined)?.required === true;
    const body = requestBody ? this.compile(requestBody.schema) : undefined;
    const normalize = requestBody ? this.nfcNormalizer(requestBody.schema) : undefined;
    const oversized = requestBody ? this.oversizeCheck(requestBody.schema, 'body') : undefined;

    return (input) => {
      const details: ErrorDetail[] = [];
      if (!params(input.params)) details.push(...detailsOf('path', params.errors));
      const typedQuery = parseQuery(queryParameters, input.query, details);
      if (!query(typedQuery)) details.push(...detailsOf('query', query.errors));
      if (body) {
        if (input.body === undefined) {
          if (bodyRequired) details.push({ field: 'body', message: 'is required' });
        } else {
          // Past its bounds, a body is refused before the schema sees its every item or key.
          const tooLong = oversized?.(input.body) ?? [];
          if (tooLong.length > 0) throw invalidRequest([...details, ...tooLong]);
          normalize?.(input.body);
          if (!body(input.body)) {
            details.push(...detailsOf('body', body.errors));
            const check = this.bodyChecks[operation.id];
            if (check) details.push(...checkedBody(check, input.body, body.errors ?? []));
          }
        }
      }
      if (details.length > 0) throw invalidRequest(details.slice(0, MAX_DETAILS));
      return { params: input.params, query: typedQuery, body: input.body };
    };
  }

  private compileResponses(operation: Operation): (status: number, body: unknown) => ErrorDetail[] {
    const byStatus = new Map<number, ValidateFunction>();
    for (const [status, response] of Object.entries(operation.spec.responses as Schema)) {
      const resolved = response.$ref ? this.resolveRef(response.$ref) : response;
      const content = resolved?.content;
      const schema = (content?.['application/json'] ?? content?.['application/scim+json'])?.schema;
      if (schema) byStatus.set(Number(status), this.compile(schema));
    }
    return (status, body) => {
      const validate = byStatus.get(status);
      if (!validate)
        return [
          { field: 'status', message: `${status} is not a JSON response of ${operation.id}` },
        ];
      return validate(body) ? [] : detailsOf('response', validate.errors);
    };
  }

  /**
   * Normalizes to NFC, in place, the strings of fields marked `x-secadmin-nfc` (names), before
   * they are validated: look-alike spellings become one, and length limits hold for what is
   * stored. `undefined` when the schema has no such field.
   */
  private nfcNormalizer(node: Schema): ((data: unknown) => unknown) | undefined {
    const schema = node.$ref ? this.resolveRef(node.$ref) : node;
    if (schema['x-secadmin-nfc'])
      return (data) => (typeof data === 'string' ? data.normalize('NFC') : data);
    const properties: [string, (data: unknown) => unknown][] = [];
    for (const [key, child] of Object.entries(
      (schema.properties ?? {}) as Record<string, Schema>,
    )) {
      const normalize = this.nfcNormalizer(child);
      if (normalize) properties.push([key, normalize]);
    }
    const items = schema.items ? this.nfcNormalizer(schema.items) : undefined;
    if (properties.length === 0 && !items) return undefined;
    return (data) => {
      if (Array.isArray(data)) {
        if (items) for (const [i, item] of data.entries()) data[i] = items(item);
      } else if (data !== null && typeof data === 'object') {
        const record = data as Record<string, unknown>;
        for (const [key, normalize] of properties)
          if (Object.hasOwn(record, key)) record[key] = normalize(record[key]);
      }
      return data;
    };
  }

  /**
   * What a body holds past its schema's bounds that the schema would report item by item or key
   * by key: arrays longer than their `maxItems`, and objects with more unknown keys than a
   * response reports (`additionalProperties: false`; 90,000 of them were as many errors).
   * Found without walking the items; `undefined` when the schema has no such bound.
   */
  private oversizeCheck(
    node: Schema,
    path: string,
  ): ((data: unknown) => ErrorDetail[]) | undefined {
    const schema = node.$ref ? this.resolveRef(node.$ref) : node;
    const checks: ((data: unknown) => ErrorDetail[])[] = [];
    if (typeof schema.maxItems === 'number') {
      const max = schema.maxItems as number;
      checks.push((data) =>
        Array.isArray(data) && data.length > max
          ? [{ field: path, message: `must NOT have more than ${max} items` }]
          : [],
      );
    }
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties === false)
      checks.push((data) => unknownKeysPastReport(data, properties, path));
    for (const [key, child] of Object.entries(properties)) {
      const check = this.oversizeCheck(child, `${path}.${key}`);
      if (check)
        checks.push((data) =>
          data !== null && typeof data === 'object' && Object.hasOwn(data, key)
            ? check((data as Record<string, unknown>)[key])
            : [],
        );
    }
    const items = schema.items ? this.oversizeCheck(schema.items, `${path}[]`) : undefined;
    if (items)
      checks.push((data) =>
        Array.isArray(data)
          ? data.flatMap((item, i) =>
              (items(item) as ErrorDetail[]).map((detail) => ({
                ...detail,
                field: detail.field.replace(`${path}[]`, `${path}[${i}]`),
              })),
            )
          : [],
      );
    if (checks.length === 0) return undefined;
    return (data) => checks.flatMap((check) => check(data));
  }

  /** `#/components/responses/NotFound` → that component. */
  private resolveRef(ref: string): Schema {
    const [kind, name] = ref.replace('#/components/', '').split('/') as [string, string];
    return this.components[kind]?.[name] as Schema;
  }

  private resolveParameter(ref: string): Parameter {
    return this.resolveRef(ref) as Parameter;
  }
}

/**
 * The unknown keys of an object, when there are more than a response reports (none otherwise:
 * the schema reports them then, with everything else).
 */
function unknownKeysPastReport(
  data: unknown,
  properties: Record<string, Schema>,
  path: string,
): ErrorDetail[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const unknown: ErrorDetail[] = [];
  let count = 0;
  for (const key of Object.keys(data)) {
    if (Object.hasOwn(properties, key)) continue;
    count++;
    if (unknown.length < MAX_DETAILS)
      unknown.push({ field: `${path}.${key}`, message: 'is not allowed' });
  }
  return count > MAX_DETAILS ? unknown : [];
}

/** The parameters of one location as one object schema: unknown names are refused. */
function checkedBody(check: BodyCheck, body: unknown, errors: ErrorObject[]): ErrorDetail[] {
  const faults = errors.map((error) => detailOf('body', error).field);
  const faulty = (field: string) =>
    faults.some(
      (fault) =>
        fault === `body.${field}` ||
        fault.startsWith(`body.${field}.`) ||
        fault.startsWith(`body.${field}[`),
    );
  return check(body, faulty).map(({ field, message }) => ({ field: `body.${field}`, message }));
}

function objectOf(parameters: Parameter[]): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

/**
 * Query strings as the schema's types: plain integers and booleans converted, comma lists
 * (`style: form, explode: false`) split. A value given twice, or not in its plain form, is
 * a violation; unknown names are left for the schema to refuse.
 */
function parseQuery(
  parameters: Parameter[],
  query: Record<string, unknown>,
  details: ErrorDetail[],
): Record<string, unknown> {
  const typed: Record<string, unknown> = { ...query };
  for (const parameter of parameters) {
    const value = query[parameter.name];
    if (value === undefined) continue;
    const field = `query.${parameter.name}`;
    if (typeof value !== 'string') {
      details.push({ field, message: 'must be given once' });
      continue;
    }
    const type = parameter.schema.type as string;
    if (type === 'array') {
      typed[parameter.name] = value.split(',');
      continue;
    }
    const form = PLAIN_FORMS[type];
    if (!form) continue;
    if (form.pattern.test(value)) typed[parameter.name] = form.parse(value);
    else {
      details.push({ field, message: form.message });
      delete typed[parameter.name];
    }
  }
  return typed;
}

/** `#/components/…` inside a compiled schema means the spec's components. */
function relocateRefs(schema: Schema): Schema {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"$ref":"#/components/', '"$ref":"spec#/components/'),
  );
}
