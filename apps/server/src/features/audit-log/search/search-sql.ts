import { Prisma } from '@secadmin/db';
import type { LogOrigin } from '../repository.js';
import type { Atom, SearchQuery } from './query.js';

const likePrefix = (value: string) => `${value.replace(/[\\%_]/g, '\\$&')}%`;

function atomSql(atom: Atom): Prisma.Sql {
  let condition: Prisma.Sql;
  if (atom.kind === 'text') {
    // The same split as the generated `search` column: a term is the phrase of its words.
    condition = Prisma.sql`search @@ phraseto_tsquery('simple', regexp_replace(${atom.text}, '[^[:alnum:]]+', ' ', 'g'))`;
  } else if (atom.field === 'event') {
    const value = atom.value.toLowerCase();
    condition = value.endsWith('*')
      ? Prisma.sql`event LIKE ${likePrefix(value.slice(0, -1))}`
      : Prisma.sql`event = ${value}`;
  } else if (atom.field === 'actor') {
    condition = Prisma.sql`(actor_id = ${atom.value} OR lower(actor_email) = lower(${atom.value}))`;
  } else if (atom.field === 'result') {
    condition = Prisma.sql`result = ${atom.value}`;
  } else {
    condition = Prisma.sql`ip = ${atom.value}`;
  }
  return atom.negated ? Prisma.sql`NOT coalesce(${condition}, false)` : condition;
}

/** The SQL condition of a parsed search query within a time range, of one origin or both. */
export function searchWhere(
  query: SearchQuery,
  range: { from?: Date; to?: Date },
  origin: LogOrigin | undefined,
): Prisma.Sql {
  const parts = query.map((clause) => Prisma.sql`(${Prisma.join(clause.map(atomSql), ' OR ')})`);
  if (range.from) parts.push(Prisma.sql`timestamp >= ${range.from}`);
  if (range.to) parts.push(Prisma.sql`timestamp < ${range.to}`);
  if (origin) parts.push(Prisma.sql`origin = ${origin}`);
  return Prisma.join(parts, ' AND ');
}
