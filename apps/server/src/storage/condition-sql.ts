import type { Condition } from '../lib/condition.js';
import type { Connection } from './connection.js';

/** How a field of a `Condition` is stored: its column and how its values compare. */
export interface ConditionColumn {
  sql: string;
  /** `text-ci` compares lowercased (the column holds the lowercased text, or is wrapped). */
  type: 'text' | 'text-ci' | 'boolean' | 'timestamp';
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A `Condition` as a SQL boolean expression over `columns`, its values appended to `params`
 * as placeholders (never spliced into the text). Under a `not`, each leaf is coalesced to a
 * boolean, so that `not` of a comparison with a NULL column holds, as SCIM's
 * `not (externalId eq "x")` should; elsewhere a NULL already counts as false, and a bare
 * comparison keeps the column's index usable. A field the columns do not name is a
 * programming error: callers map only known fields.
 */
export function conditionSql(
  condition: Condition,
  columns: Record<string, ConditionColumn>,
  params: unknown[],
  negated = false,
): string {
  const leaf = (expression: string) => (negated ? `COALESCE(${expression}, FALSE)` : expression);
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const column = (field: string) => {
    const found = columns[field];
    if (!found) throw new Error(`no column for field ${field}`);
    return found;
  };
  switch (condition.kind) {
    case 'constant':
      return condition.value ? 'TRUE' : 'FALSE';
    case 'and':
    case 'or':
      return `(${condition.of.map((c) => conditionSql(c, columns, params, negated)).join(` ${condition.kind.toUpperCase()} `)})`;
    case 'not':
      return `(NOT ${conditionSql(condition.of, columns, params, !negated)})`;
    case 'present':
      return `(${column(condition.field).sql} IS NOT NULL)`;
    case 'in':
      return leaf(`${column(condition.field).sql} = ANY(${param(condition.values)}::text[])`);
    case 'compare': {
      const { sql, type } = column(condition.field);
      const raw = condition.value;
      const value = type === 'text-ci' && typeof raw === 'string' ? raw.toLowerCase() : raw;
      const cast = type === 'timestamp' ? '::timestamptz' : type === 'boolean' ? '::boolean' : '';
      let expression: string;
      switch (condition.op) {
        case 'eq':
          expression = `${sql} = ${param(value)}${cast}`;
          break;
        case 'ne':
          expression = `${sql} IS DISTINCT FROM ${param(value)}${cast}`;
          break;
        case 'co':
          expression = `${sql} LIKE '%' || ${param(escapeLike(String(value)))} || '%'`;
          break;
        case 'sw':
          expression = `${sql} LIKE ${param(escapeLike(String(value)))} || '%'`;
          break;
        case 'ew':
          expression = `${sql} LIKE '%' || ${param(escapeLike(String(value)))}`;
          break;
        default: {
          const op = { gt: '>', ge: '>=', lt: '<', le: '<=' }[condition.op];
          expression = `${sql} ${op} ${param(value)}${cast}`;
        }
      }
      return leaf(expression);
    }
  }
}

/**
 * One page of the rows of `table` (a name written in the repository, never taken from a
 * request) matching `condition`, oldest first, and how many match in all: SCIM's
 * `startIndex`/`count` over the `/v1` records. `limit` 0 counts only.
 */
export async function pageMatching<Row>(
  c: Connection,
  table: { name: string; columns: string; searchable: Record<string, ConditionColumn> },
  condition: Condition,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: Row[] }> {
  const params: unknown[] = [];
  const where = conditionSql(condition, table.searchable, params);
  const [counted] = await c.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table.name} WHERE ${where}`,
    params,
  );
  const rows =
    limit === 0
      ? []
      : await c.sql<Row>(
          `SELECT ${table.columns} FROM ${table.name} WHERE ${where}
           ORDER BY created_at, id OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
          [...params, offset, limit],
        );
  return { total: counted?.n ?? 0, rows };
}
