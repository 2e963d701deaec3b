import type { components } from '@secadmin/api-types';
import type { FieldProblem } from '../../lib/errors.js';

export type Subject = components['schemas']['AuthzenSubject'];
export type Action = components['schemas']['AuthzenAction'];
export type Resource = components['schemas']['AuthzenResource'];
export type Context = components['schemas']['AuthzenContext'];
export type Properties = components['schemas']['AuthzenProperties'];

/** One access question, its entities complete (defaults applied). */
export interface Question {
  subject: Subject;
  action: Action;
  resource: Resource;
  context?: Context | undefined;
}

/** The simulator's request for a question. */
export interface SimulationInput {
  principal: string;
  action: string;
  resource: string;
  context?: Context;
  attributes?: {
    principal?: Properties;
    resource?: Properties;
    action?: Properties;
  };
  explain: false;
}

export function toSimulation({ subject, action, resource, context }: Question): SimulationInput {
  const attributes: NonNullable<SimulationInput['attributes']> = {};
  if (subject.properties) attributes.principal = subject.properties;
  if (resource.properties) attributes.resource = resource.properties;
  if (action.properties) attributes.action = action.properties;
  return {
    principal: `${subject.type}:${subject.id}`,
    action: action.name,
    resource: `${resource.type}/${resource.id}`,
    ...(context ? { context } : {}),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
    explain: false,
  };
}

/**
 * The subject types that are principals of secadmin's policies (`user:<id>`, `role:<id>`,
 * `service:<name>`). Any other (`User`, `spaceship`) would be decided as a principal that only
 * `*` names: for a stored user's id, without its stored attributes, its inactivity or the
 * policies naming it.
 */
const PRINCIPAL_TYPES: ReadonlySet<string> = new Set(['user', 'role', 'service']);

export const isPrincipalType = (type: string) => PRINCIPAL_TYPES.has(type);

export const NOT_A_PRINCIPAL_TYPE = 'must be user, role or service';

/**
 * The bounds of the spec's `AuthzenSubject`, `AuthzenAction`, `AuthzenResource` and
 * `AuthzenContext`: the whole-request operations have them checked by the spec's schema; an
 * item of a batch is checked here, so that its problems answer it alone.
 */
const TYPE = /^[^:/*\s]+$/;
const MAX = { type: 64, subjectId: 256, resourceId: 448, actionName: 128, properties: 256 };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function text(
  value: unknown,
  field: string,
  max: number,
  problems: FieldProblem[],
  pattern?: RegExp,
): void {
  if (value === undefined) problems.push({ field, message: 'is required' });
  else if (typeof value !== 'string') problems.push({ field, message: 'must be a string' });
  else if (value.length < 1 || value.length > max)
    problems.push({ field, message: `must have 1 to ${max} characters` });
  else if (pattern && !pattern.test(value))
    problems.push({ field, message: 'must be a type name without `:`, `/`, `*` or whitespace' });
}

function properties(value: unknown, field: string, problems: FieldProblem[]): void {
  if (value === undefined) return;
  if (!isObject(value)) problems.push({ field, message: 'must be an object' });
  else if (Object.keys(value).length > MAX.properties)
    problems.push({ field, message: `must have at most ${MAX.properties} keys` });
}

function entity(
  value: unknown,
  field: string,
  keys: [string, number, RegExp | undefined][],
  problems: FieldProblem[],
): void {
  if (value === undefined) return void problems.push({ field, message: 'is required' });
  if (!isObject(value)) return void problems.push({ field, message: 'must be an object' });
  for (const [key, max, pattern] of keys)
    text(value[key], `${field}.${key}`, max, problems, pattern);
  properties(value.properties, `${field}.properties`, problems);
}

/** The problems of a question assembled from a batch item and the defaults; none when it is complete. */
export function questionProblems(question: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  entity(
    question.subject,
    'subject',
    [
      ['type', MAX.type, TYPE],
      ['id', MAX.subjectId, undefined],
    ],
    problems,
  );
  entity(question.action, 'action', [['name', MAX.actionName, undefined]], problems);
  entity(
    question.resource,
    'resource',
    [
      ['type', MAX.type, TYPE],
      ['id', MAX.resourceId, undefined],
    ],
    problems,
  );
  const context = question.context;
  if (context !== undefined) {
    if (!isObject(context)) problems.push({ field: 'context', message: 'must be an object' });
    else {
      if (Object.keys(context).length > MAX.properties)
        problems.push({ field: 'context', message: `must have at most ${MAX.properties} keys` });
      for (const key of ['ip', 'time'])
        if (context[key] !== undefined && typeof context[key] !== 'string')
          problems.push({ field: `context.${key}`, message: 'must be a string' });
    }
  }
  return problems;
}

/**
 * The simulator names its input's fields (`context.ip`, `attributes.resource.status`, and in a
 * batch `checks[3].…`); AuthZEN callers know them as `context.ip`, `resource.properties.status`.
 */
export function authzenField(field: string): string {
  const own = field.replace(/^checks\[\d+\]\./, '');
  // The bounds hold for the three entities' properties together (one `attributes` object).
  if (own === 'attributes') return 'properties';
  return own
    .replace(/^attributes\.principal/, 'subject.properties')
    .replace(/^attributes\.resource/, 'resource.properties')
    .replace(/^attributes\.action/, 'action.properties');
}
