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

/** Every policy change bumps this, in its transaction: instances reload when it moves. */
export async function bumpPolicySetVersion(db: Db): Promise<void> {
  await db.$executeRaw`UPDATE policy_set_version SET version = version + 1 WHERE id = 1`;
}

/** The policy set version, and the roles of a user principal, in one round trip. */
export async function readVersionAndRoles(
  query: SqlQuery,
  userId: string | undefined,
): Promise<{ version: bigint; roles: string[] }> {
  const rows = await query<{ version: bigint | string; roles: string[] | null }>(
    `SELECT (SELECT version FROM policy_set_version WHERE id = 1) AS version,
            (SELECT roles FROM users WHERE id = $1) AS roles`,
    [userId ?? null],
  );
  const row = rows[0];
  return { version: BigInt(row?.version ?? 0), roles: row?.roles ?? [] };
}
