import type { Prisma, PrismaClient, SqlQuery } from '@secadmin/db';

/** The client, or a transaction's: repositories work with either. */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * What a repository reads and writes through: Prisma for the model's own operations, and
 * plain SQL for the hot paths (outside a transaction straight to the driver, which costs
 * far less per statement than Prisma; inside one, through the transaction's driver connection).
 */
export interface Connection {
  db: Db;
  sql: SqlQuery;
}

/** A transaction: Prisma's client for model operations, plain SQL through its driver connection. */
export function transactionConnection(tx: Prisma.TransactionClient, sql: SqlQuery): Connection {
  return { db: tx, sql };
}

/**
 * Locks the row of `table` (a name written in the repository, never taken from a request) with
 * this id until the transaction ends; false when there is none.
 */
export async function lockRow(c: Connection, table: string, id: string): Promise<boolean> {
  const rows = await c.sql(`SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`, [id]);
  return rows.length > 0;
}

/** Rows after `(at, id)` in ascending keyset order. */
export function ascendingAfter(after: { at: Date; id: string } | undefined) {
  if (!after) return {};
  return {
    OR: [{ createdAt: { gt: after.at } }, { createdAt: after.at, id: { gt: after.id } }],
  };
}
