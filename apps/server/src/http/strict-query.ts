import type { OperationId } from '@secadmin/api-types';
import type { RequestHandler } from 'express';
import { ApiError, type ErrorDetail } from './errors.js';
import type { loadSpec, MatchedOperation } from './spec.js';

/**
 * The plain forms of typed query values (decisions.md §5): `10`, not `0x10`, `1e1`, `10.0`,
 * `+10` or ` 10`; `true`/`false`, not `1` or `yes`. The validator would convert those.
 */
const PLAIN_FORMS: Record<string, PlainForm> = {
  integer: {
    pattern: /^-?(0|[1-9][0-9]*)$/,
    message: 'must be an integer in plain decimal, given once',
  },
  number: {
    pattern: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/,
    message: 'must be a plain decimal number, given once',
  },
  boolean: { pattern: /^(true|false)$/, message: 'must be true or false, given once' },
};

interface PlainForm {
  pattern: RegExp;
  message: string;
}
type Spec = ReturnType<typeof loadSpec>;
interface Parameter {
  name: string;
  in: string;
  schema?: { type?: string };
  $ref?: string;
}

/** Each operation's query parameters that have a typed (non-string) schema. */
function typedQueryParameters(spec: Spec): Map<OperationId, [string, PlainForm][]> {
  const components = (spec.components as { parameters?: Record<string, Parameter> }).parameters;
  const resolve = (p: Parameter) =>
    p.$ref ? (components?.[p.$ref.split('/').at(-1) as string] as Parameter) : p;
  const result = new Map<OperationId, [string, PlainForm][]>();
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item) as {
      operationId?: OperationId;
      parameters?: Parameter[];
    }[]) {
      if (!operation?.operationId) continue;
      const parameters = [
        ...((item.parameters as Parameter[]) ?? []),
        ...(operation.parameters ?? []),
      ];
      const typed: [string, PlainForm][] = [];
      for (const parameter of parameters.map(resolve)) {
        const form = PLAIN_FORMS[parameter.schema?.type ?? ''];
        if (parameter.in === 'query' && form) typed.push([parameter.name, form]);
      }
      if (typed.length > 0) result.set(operation.operationId, typed);
    }
  }
  return result;
}

/** 400 for a typed query value not in its plain form, or given more than once. */
export function strictQuery(spec: Spec): RequestHandler {
  const typed = typedQueryParameters(spec);
  return (req, res, next) => {
    const operation = res.locals.operation as MatchedOperation | undefined;
    const parameters = operation && typed.get(operation.operationId);
    if (!parameters) return next();
    const violations: ErrorDetail[] = [];
    for (const [name, form] of parameters) {
      const value = req.query[name];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !form.pattern.test(value))
        violations.push({ field: `query.${name}`, message: form.message });
    }
    if (violations.length > 0)
      throw new ApiError('invalid_request', 'The request is invalid.', violations);
    next();
  };
}
