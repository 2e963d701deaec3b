/**
 * A filter over one kind of record, in neutral terms: a protocol (SCIM) maps its own filter
 * onto these, and a repository compiles them to SQL over the columns it names.
 */
export type Condition =
  | { kind: 'and' | 'or'; of: Condition[] }
  | { kind: 'not'; of: Condition }
  | { kind: 'compare'; field: string; op: CompareOp; value: string | boolean | Date }
  | { kind: 'present'; field: string }
  | { kind: 'in'; field: string; values: string[] }
  | { kind: 'constant'; value: boolean };

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
