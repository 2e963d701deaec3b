import { Prisma } from '@secadmin/db';
import type { Atom, SearchQuery } from './query.js';

/**
 * The qualifier lexeme `<prefix><value>` as a tsquery (a prefix match with `*`), quoted in
 * SQL so that no value can inject tsquery syntax. The `search` column holds these lexemes
 * (migration 20261126082000_search_indexes); words never contain `:`, so they never collide.
 */
function lexeme(prefix: string, value: Prisma.Sql, prefixMatch = false): Prisma.Sql {
  const quoted = Prisma.sql`'''' || replace(replace(${prefix} || ${value}, '\\', '\\\\'), '''', '''''') || ''''`;
  return prefixMatch ? Prisma.sql`(${quoted} || ':*')::tsquery` : Prisma.sql`(${quoted})::tsquery`;
}

function atomQuery(atom: Atom): Prisma.Sql {
  let query: Prisma.Sql;
  if (atom.kind === 'text') {
    // The same split as the generated `search` column: a term is the phrase of its words.
    query = Prisma.sql`phraseto_tsquery('simple', regexp_replace(${atom.text}, '[^[:alnum:]]+', ' ', 'g'))`;
  } else if (atom.field === 'event') {
    const value = atom.value.toLowerCase();
    query = value.endsWith('*')
      ? lexeme('event:', Prisma.sql`${value.slice(0, -1)}`, true)
      : lexeme('event:', Prisma.sql`${value}`);
  } else if (atom.field === 'actor') {
    query = Prisma.sql`(${lexeme('actorid:', Prisma.sql`${atom.value}`)} || ${lexeme('actoremail:', Prisma.sql`lower(${atom.value})`)})`;
  } else {
    query = lexeme(`${atom.field}:`, Prisma.sql`${atom.value}`);
  }
  return atom.negated ? Prisma.sql`(!! ${query})` : query;
}

/**
 * A parsed search query as one tsquery against the `search` column, so that one GIN index
 * scan answers it (words, phrases, OR, exclusions and qualifiers alike) and the planner
 * estimates its selectivity from the column's lexeme statistics.
 */
export function searchMatch(query: SearchQuery): Prisma.Sql {
  const clauses = query.map(
    (clause) => Prisma.sql`(${Prisma.join(clause.map(atomQuery), ' || ')})`,
  );
  return Prisma.sql`search @@ (${Prisma.join(clauses, ' && ')})`;
}

type FieldAtom = Extract<Atom, { kind: 'field' }>;

function columnCondition(atom: FieldAtom): Prisma.Sql {
  const value = atom.field === 'event' ? atom.value.toLowerCase() : atom.value;
  const test =
    atom.field === 'result'
      ? Prisma.sql`result = ${value}`
      : value.endsWith('*')
        ? Prisma.sql`starts_with(event, ${value.slice(0, -1)})`
        : Prisma.sql`event = ${value}`;
  return atom.negated ? Prisma.sql`NOT (${test})` : test;
}

/**
 * The query as a condition on the `event` and `result` columns, when it holds nothing else
 * (undefined otherwise): true of exactly the entries `searchMatch` finds, since the `search`
 * column holds `event:<event>` and `result:<result>` as they are, and the query's event value
 * is lowercased there as here. Tables keyed by those columns (the hour counts) can answer it.
 */
export function columnsMatch(query: SearchQuery): Prisma.Sql | undefined {
  const onColumns = (atom: Atom): atom is FieldAtom =>
    atom.kind === 'field' && (atom.field === 'event' || atom.field === 'result');
  if (!query.every((clause) => clause.every(onColumns))) return undefined;
  const clauses = query.map(
    (clause) => Prisma.sql`(${Prisma.join((clause as FieldAtom[]).map(columnCondition), ' OR ')})`,
  );
  return Prisma.join(clauses, ' AND ');
}
