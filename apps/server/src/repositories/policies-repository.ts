import type { Policy, Prisma, SqlQuery } from '@secadmin/db';
import { ascendingAfter, type Db } from './db.js';

export type PolicyRow = Policy;

export function insertPolicy(db: Db, data: Prisma.PolicyCreateInput): Promise<PolicyRow> {
  return db.policy.create({ data });
}

export function findPolicy(db: Db, id: string): Promise<PolicyRow | null> {
  return db.policy.findUnique({ where: { id } });
}

export function listPolicies(
  db: Db,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<PolicyRow[]> {
  return db.policy.findMany({
    where: ascendingAfter(after),
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

export function allPolicies(db: Db): Promise<PolicyRow[]> {
  return db.policy.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

export function updatePolicy(
  db: Db,
  id: string,
  data: Prisma.PolicyUpdateInput,
): Promise<PolicyRow> {
  return db.policy.update({ where: { id }, data });
}

export async function deletePolicy(db: Db, id: string): Promise<boolean> {
  const { count } = await db.policy.deleteMany({ where: { id } });
  return count > 0;
}

/** Removes one principal from every policy naming it; returns how many changed. */
export function removePrincipalEverywhere(db: Db, principal: string): Promise<number> {
  return db.$executeRaw`
    UPDATE policies SET principals = array_remove(principals, ${principal})
    WHERE ${principal} = ANY(principals)`;
}

/** The roles of a user, read for each decision about a user principal not in the cache. */
export async function readRoles(query: SqlQuery, userId: string): Promise<string[]> {
  const rows = await query<{ roles: string[] }>('SELECT roles FROM users WHERE id = $1', [userId]);
  return rows[0]?.roles ?? [];
}
