import { Prisma } from '@secadmin/db';
import { ascendingAfter, type Connection, lockRow } from '../../storage/connection.js';
import type { PolicyRow } from './model.js';

/** A policy update; `conditions: null` removes them. */
export type PolicyChanges = Omit<Prisma.PolicyUpdateInput, 'conditions'> & {
  conditions?: object | null;
};

export class PoliciesRepository {
  constructor(private readonly c: Connection) {}

  insert(data: Prisma.PolicyCreateInput): Promise<PolicyRow> {
    return this.c.db.policy.create({ data });
  }

  find(id: string): Promise<PolicyRow | null> {
    return this.c.db.policy.findUnique({ where: { id } });
  }

  /** Reads the row and locks it until the transaction ends, so read-modify-write is safe. */
  async findForUpdate(id: string): Promise<PolicyRow | null> {
    return (await lockRow(this.c, 'policies', id)) ? this.find(id) : null;
  }

  list(after: { at: Date; id: string } | undefined, take: number): Promise<PolicyRow[]> {
    return this.c.db.policy.findMany({
      where: ascendingAfter(after),
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
    });
  }

  all(): Promise<PolicyRow[]> {
    return this.c.db.policy.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  update(id: string, { conditions, ...changes }: PolicyChanges): Promise<PolicyRow> {
    const data: Prisma.PolicyUpdateInput = changes;
    if (conditions !== undefined) data.conditions = conditions ?? Prisma.DbNull;
    return this.c.db.policy.update({ where: { id }, data });
  }

  async delete(id: string): Promise<boolean> {
    const { count } = await this.c.db.policy.deleteMany({ where: { id } });
    return count > 0;
  }

  /** Removes one principal from every policy naming it; returns how many changed. */
  async removePrincipalEverywhere(principal: string): Promise<number> {
    const rows = await this.c.sql<{ n: number }>(
      `WITH changed AS (
         UPDATE policies SET principals = array_remove(principals, $1), version = version + 1
         WHERE $1 = ANY(principals) RETURNING 1)
       SELECT count(*)::int AS n FROM changed`,
      [principal],
    );
    return rows[0]?.n ?? 0;
  }
}
