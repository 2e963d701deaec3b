import type { Prisma } from '@secadmin/db';
import type { Condition } from '../../lib/condition.js';
import { type ConditionColumn, conditionSql, pageMatching } from '../../storage/condition-sql.js';
import { ascendingAfter, type Connection, lockRow } from '../../storage/connection.js';
import type { RoleRow } from './model.js';

const ROLE_COLUMNS = `id, name, description, external_id AS "externalId", version,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The fields a search `Condition` may name (SCIM filters), and their columns. */
const SEARCHABLE: Record<string, ConditionColumn> = {
  id: { sql: 'id', type: 'text' },
  name: { sql: 'lower(name)', type: 'text-ci' },
  externalId: { sql: 'external_id', type: 'text' },
  createdAt: { sql: 'created_at', type: 'timestamp' },
  updatedAt: { sql: 'updated_at', type: 'timestamp' },
};

export class RolesRepository {
  constructor(private readonly c: Connection) {}

  insert(data: Prisma.RoleCreateInput): Promise<RoleRow> {
    return this.c.db.role.create({ data });
  }

  find(id: string): Promise<RoleRow | null> {
    return this.c.db.role.findUnique({ where: { id } });
  }

  findMany(ids: string[]): Promise<RoleRow[]> {
    return this.c.db.role.findMany({ where: { id: { in: ids } } });
  }

  /** Reads the row and locks it until the transaction ends. */
  async findForUpdate(id: string): Promise<RoleRow | null> {
    return (await lockRow(this.c, 'roles', id)) ? this.find(id) : null;
  }

  list(
    filter: { externalId?: string | undefined },
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<RoleRow[]> {
    return this.c.db.role.findMany({
      where: {
        ...(filter.externalId !== undefined ? { externalId: filter.externalId } : {}),
        ...ascendingAfter(after),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
    });
  }

  /** A page of the roles matching `condition`, oldest first, and how many match in all. */
  search(
    condition: Condition,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: RoleRow[] }> {
    return pageMatching<RoleRow>(
      this.c,
      { name: 'roles', columns: ROLE_COLUMNS, searchable: SEARCHABLE },
      condition,
      offset,
      limit,
    );
  }

  /** The ids of every role matching `condition`, in no order. */
  async idsMatching(condition: Condition): Promise<string[]> {
    const params: unknown[] = [];
    const where = conditionSql(condition, SEARCHABLE, params);
    const rows = await this.c.sql<{ id: string }>(`SELECT id FROM roles WHERE ${where}`, params);
    return rows.map((row) => row.id);
  }

  update(id: string, data: Prisma.RoleUpdateInput): Promise<RoleRow> {
    return this.c.db.role.update({ where: { id }, data });
  }

  async delete(id: string): Promise<void> {
    await this.c.db.role.delete({ where: { id } });
  }
}
