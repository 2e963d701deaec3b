import type { Prisma, Role } from '@secadmin/db';
import { ascendingAfter, type Connection, lockRow } from '../../storage/connection.js';

export type RoleRow = Role;

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

  update(id: string, data: Prisma.RoleUpdateInput): Promise<RoleRow> {
    return this.c.db.role.update({ where: { id }, data });
  }

  async delete(id: string): Promise<void> {
    await this.c.db.role.delete({ where: { id } });
  }
}
