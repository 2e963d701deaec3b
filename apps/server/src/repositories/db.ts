import type { Prisma, PrismaClient } from '@secadmin/db';

/** The client, or a transaction's: repositories work with either. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** Prisma's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'P2002';
}

/** Rows after `(at, id)` in ascending keyset order. */
export function ascendingAfter(after: { at: Date; id: string } | undefined) {
  if (!after) return {};
  return {
    OR: [{ createdAt: { gt: after.at } }, { createdAt: after.at, id: { gt: after.id } }],
  };
}
