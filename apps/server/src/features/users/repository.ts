import type { Prisma } from '@secadmin/db';
import type { Condition } from '../../lib/condition.js';
import { type ConditionColumn, pageMatching } from '../../storage/condition-sql.js';
import { ascendingAfter, type Connection, lockRow } from '../../storage/connection.js';
import type { UserRow } from './model.js';

const USER_COLUMNS = `id, email, email_lower AS "emailLower", name, password_hash AS "passwordHash",
  email_verified AS "emailVerified", active, external_id AS "externalId", roles, metadata, version,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The fields a search `Condition` may name (SCIM filters), and their columns. */
const SEARCHABLE: Record<string, ConditionColumn> = {
  id: { sql: 'id', type: 'text' },
  email: { sql: 'email_lower', type: 'text-ci' },
  name: { sql: 'lower(name)', type: 'text-ci' },
  externalId: { sql: 'external_id', type: 'text' },
  active: { sql: 'active', type: 'boolean' },
  createdAt: { sql: 'created_at', type: 'timestamp' },
  updatedAt: { sql: 'updated_at', type: 'timestamp' },
};

export class UsersRepository {
  constructor(private readonly c: Connection) {}

  insert(data: Prisma.UserCreateInput): Promise<UserRow> {
    return this.c.db.user.create({ data });
  }

  find(id: string): Promise<UserRow | null> {
    return this.c.db.user.findUnique({ where: { id } });
  }

  /** Which of these ids are stored users', in one statement. */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.c.sql<{ id: string }>('SELECT id FROM users WHERE id = ANY($1)', [
      [...ids],
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** The read path of GET /v1/users/{id}: plain SQL. */
  async read(id: string): Promise<UserRow | null> {
    const rows = await this.c.sql<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Roles and `active`, read for each decision about a user principal not in the cache. */
  async standing(id: string): Promise<{ roles: string[]; active: boolean } | null> {
    const rows = await this.c.sql<{ roles: string[]; active: boolean }>(
      'SELECT roles, active FROM users WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  /** What attribute conditions read of a user principal (`principal.*`). */
  async attributes(id: string): Promise<{
    email: string;
    roles: string[];
    emailVerified: boolean;
    active: boolean;
    metadata: unknown;
  } | null> {
    const rows = await this.c.sql<{
      email: string;
      roles: string[];
      emailVerified: boolean;
      active: boolean;
      metadata: unknown;
    }>(
      'SELECT email, roles, email_verified AS "emailVerified", active, metadata FROM users WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  /** Reads the row and locks it until the transaction ends, so read-modify-write is safe. */
  async findForUpdate(id: string): Promise<UserRow | null> {
    return (await lockRow(this.c, 'users', id)) ? this.find(id) : null;
  }

  list(
    filter: {
      email?: string | undefined;
      role?: string | undefined;
      active?: boolean | undefined;
      externalId?: string | undefined;
    },
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<UserRow[]> {
    return this.c.db.user.findMany({
      where: {
        ...(filter.email !== undefined ? { emailLower: filter.email.toLowerCase() } : {}),
        ...(filter.role !== undefined ? { roles: { has: filter.role } } : {}),
        ...(filter.active !== undefined ? { active: filter.active } : {}),
        ...(filter.externalId !== undefined ? { externalId: filter.externalId } : {}),
        ...ascendingAfter(after),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
    });
  }

  /** A page of the users matching `condition`, oldest first, and how many match in all. */
  search(
    condition: Condition,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: UserRow[] }> {
    return pageMatching<UserRow>(
      this.c,
      { name: 'users', columns: USER_COLUMNS, searchable: SEARCHABLE },
      condition,
      offset,
      limit,
    );
  }

  /** The ids of the users holding a role, oldest first. */
  membersOf(roleId: string): Promise<{ id: string }[]> {
    return this.c.sql<{ id: string }>(
      'SELECT id FROM users WHERE roles @> ARRAY[$1] ORDER BY created_at, id',
      [roleId],
    );
  }

  /** How many users hold each role, for the roles asked (GIN index on `roles`). */
  async memberCounts(roleIds: string[]): Promise<Map<string, number>> {
    const counts = new Map(roleIds.map((id) => [id, 0]));
    if (roleIds.length === 0) return counts;
    const rows = await this.c.sql<{ role: string; members: number }>(
      `SELECT r.role, (SELECT count(*)::int FROM users WHERE roles @> ARRAY[r.role]) AS members
       FROM unnest($1::text[]) AS r(role)`,
      [roleIds],
    );
    for (const row of rows) counts.set(row.role, row.members);
    return counts;
  }

  /** Takes the role from every user that holds it (the caller's transaction); how many. */
  async withdrawRole(roleId: string, at: Date): Promise<number> {
    const rows = await this.c.sql<{ id: string }>(
      `UPDATE users SET roles = array_remove(roles, $1), version = version + 1, updated_at = $2
       WHERE roles @> ARRAY[$1] RETURNING id`,
      [roleId, at],
    );
    return rows.length;
  }

  update(id: string, data: Prisma.UserUpdateInput): Promise<UserRow> {
    return this.c.db.user.update({ where: { id }, data });
  }

  async delete(id: string): Promise<void> {
    await this.c.db.user.delete({ where: { id } });
  }
}
