const escaped = (text: string) =>
  text.includes('"') || text.includes('\\')
    ? text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')
    : text;

/**
 * A PostgreSQL array literal (`{"a",NULL,"b"}`), for one parameter cast in SQL
 * (`$1::text[]`, `$1::timestamptz[]`): the drivers then pass one string, where an array
 * costs them a conversion per element (Prisma's raw parameters most of all). A loop, and
 * escaping only for the text that needs it, is faster than `map`/`join` with `replace` on
 * every element; so is `replaceAll` twice rather than one regular expression on JSON texts,
 * which all need it (bench/results/findings.md).
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as string | null;
    if (i > 0) literal += ',';
    literal += value === null ? 'NULL' : `"${escaped(value)}"`;
  }
  return `${literal}}`;
}
