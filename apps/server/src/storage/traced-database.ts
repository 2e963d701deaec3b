import type { Database } from '@secadmin/db';
import type { Trace } from '../lib/trace.js';

const SYSTEM = { 'db.system.name': 'postgresql' } as const;

/**
 * The database with a span around each call: a statement (named by its first keyword, with its
 * text; values are bound parameters and never part of it), a Prisma operation, a transaction.
 * Statements inside a transaction are part of the transaction's span.
 */
export function tracedDatabase<D extends Pick<Database, 'prisma' | 'query' | 'transaction'>>(
  db: D,
  inSpan: Trace,
): D {
  const prisma = db.prisma.$extends({
    query: {
      $allOperations: ({ model, operation, args, query }) =>
        inSpan(
          `${model ?? 'prisma'}.${operation}`,
          { ...SYSTEM, 'db.operation.name': operation },
          () => query(args),
        ),
    },
  }) as unknown as D['prisma'];
  return {
    ...db,
    prisma,
    query: (text, params) =>
      inSpan(
        /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL',
        { ...SYSTEM, 'db.query.text': text },
        () => db.query(text, params),
      ),
    transaction: (work, options) =>
      inSpan('transaction', SYSTEM, () => db.transaction(work, options)),
  };
}
