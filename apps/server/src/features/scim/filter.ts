import { type Filter, parse } from 'scim2-parse-filter';
import type { CompareOp, Condition } from '../../lib/condition.js';
import { Invalid } from '../../lib/errors.js';

/*
 * Filters are parsed by scim2-parse-filter (Unlicense, zero dependencies, maintained beside
 * scim-patch by the same author): it gives an AST of RFC 7644 §3.4.2.2 (and/or/not, value
 * paths, `pr`), which is what a translation to SQL needs. scimmy parses filters too, but as part
 * of a whole SCIM server framework with its own resources and schemas; we only need the parser.
 */

/** Bounds on a filter, checked before and after parsing (the parser recurses). */
const MAX_DEPTH = 8;
const MAX_TERMS = 32;

const invalidFilter = (message: string) =>
  new Invalid([{ field: 'filter', message }], `filter: ${message}`, 'invalidFilter');

/** How a SCIM attribute maps onto a neutral field, and what values it compares with. */
export interface FilterAttribute {
  field: string;
  type: 'string' | 'boolean' | 'dateTime';
  /** The operators it takes (default: all). */
  ops?: CompareOp[];
  /** A value of this attribute always present (`pr` is true). */
  alwaysPresent?: boolean;
}

export type FilterSchema = {
  /** SCIM attribute paths, lowercased (`username`, `emails.value`, `meta.lastmodified`). */
  attributes: Record<string, FilterAttribute>;
  /** The schema URN attribute paths may start with. */
  urn: string;
  /** `members.value eq "<user id>"` (groups): the role ids that user holds. */
  rolesOf?: (userId: string) => Promise<string[]>;
};

/** The deepest nesting of parentheses and brackets outside quoted strings. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === ')' || c === ']') depth--;
  }
  return deepest;
}

/**
 * A SCIM filter as a neutral `Condition`, or 400 `invalidFilter` naming what is wrong: a
 * syntax error, an unknown attribute, an operator the attribute does not take, a value of the
 * wrong type, more than 8 levels or 32 comparisons.
 */
export async function parseFilter(text: string, schema: FilterSchema): Promise<Condition> {
  if (nesting(text) > MAX_DEPTH) throw invalidFilter(`nests deeper than ${MAX_DEPTH} levels`);
  let ast: Filter;
  try {
    ast = parse(text);
  } catch (error) {
    throw invalidFilter(`is not a valid filter (${(error as Error).message.slice(0, 200)})`);
  }
  let terms = 0;
  const attribute = (path: string): FilterAttribute => {
    let name = path.toLowerCase();
    const urn = `${schema.urn.toLowerCase()}:`;
    if (name.startsWith(urn)) name = name.slice(urn.length);
    const found = schema.attributes[name];
    if (!found)
      throw invalidFilter(`"${path.slice(0, 100)}" is not an attribute this filter may use`);
    return found;
  };
  const convert = async (node: Filter, depth: number, prefix: string): Promise<Condition> => {
    if (depth > MAX_DEPTH) throw invalidFilter(`nests deeper than ${MAX_DEPTH} levels`);
    switch (node.op) {
      case 'and':
      case 'or':
        if (node.filters.length > MAX_TERMS)
          throw invalidFilter(`has more than ${MAX_TERMS} comparisons`);
        return {
          kind: node.op,
          of: await Promise.all(node.filters.map((f) => convert(f, depth + 1, prefix))),
        };
      case 'not':
        return { kind: 'not', of: await convert(node.filter, depth + 1, prefix) };
      case '[]': {
        // `emails[type eq "work"]`: a user has one email, of type "work" and primary.
        return convert(node.valFilter, depth + 1, `${node.attrPath}.`);
      }
      case 'pr': {
        if (++terms > MAX_TERMS) throw invalidFilter(`has more than ${MAX_TERMS} comparisons`);
        const path = `${prefix}${node.attrPath}`;
        if (isWorkEmailFacet(path)) return { kind: 'constant', value: true };
        const target = attribute(path);
        return target.alwaysPresent
          ? { kind: 'constant', value: true }
          : { kind: 'present', field: target.field };
      }
      default: {
        if (++terms > MAX_TERMS) throw invalidFilter(`has more than ${MAX_TERMS} comparisons`);
        const path = `${prefix}${node.attrPath}`;
        if (isWorkEmailFacet(path)) return { kind: 'constant', value: facetHolds(path, node) };
        if (schema.rolesOf && path.toLowerCase() === 'members.value') {
          if (node.op !== 'eq' || typeof node.compValue !== 'string')
            throw invalidFilter('members.value takes only eq with a string');
          return { kind: 'in', field: 'id', values: await schema.rolesOf(node.compValue) };
        }
        const target = attribute(path);
        if (target.ops && !target.ops.includes(node.op))
          throw invalidFilter(`${node.attrPath} does not take ${node.op}`);
        return {
          kind: 'compare',
          field: target.field,
          op: node.op,
          value: comparedValue(node, target),
        };
      }
    }
  };
  return convert(ast, 1, '');
}

/** `emails.type` and `emails.primary`: the one email is `work` and primary. */
const isWorkEmailFacet = (path: string) =>
  ['emails.type', 'emails.primary'].includes(path.toLowerCase());

function facetHolds(path: string, node: { op: string; compValue: unknown }): boolean {
  const actual = path.toLowerCase() === 'emails.type' ? 'work' : true;
  const value = typeof node.compValue === 'string' ? node.compValue.toLowerCase() : node.compValue;
  if (node.op === 'eq') return value === actual;
  if (node.op === 'ne') return value !== actual;
  throw invalidFilter(`${path} takes only eq, ne and pr`);
}

function comparedValue(
  node: { attrPath: string; compValue: boolean | null | number | string },
  target: FilterAttribute,
): string | boolean | Date {
  const { compValue } = node;
  if (target.type === 'boolean') {
    if (typeof compValue !== 'boolean')
      throw invalidFilter(`${node.attrPath} compares with true or false`);
    return compValue;
  }
  if (typeof compValue !== 'string')
    throw invalidFilter(`${node.attrPath} compares with a quoted string`);
  if (target.type === 'dateTime') {
    const at = new Date(compValue);
    if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(compValue))
      throw invalidFilter(`${node.attrPath} compares with an RFC 3339 date-time`);
    return at;
  }
  return compValue;
}
