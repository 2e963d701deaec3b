import type { Prisma, SqlQuery, User } from '@secadmin/db';
import { ascendingAfter, type Db } from './db.js';

export type UserRow = User;

export function insertUser(db: Db, data: Prisma.UserCreateInput): Promise<UserRow> {
  return db.user.create({ data });
}

export function findUser(db: Db, id: string): Promise<UserRow | null> {
  return db.user.findUnique({ where: { id } });
}

/** The read path of GET /v1/users/{id}: straight to the driver. */
export async function readUser(query: SqlQuery, id: string): Promise<UserRow | null> {
  const rows = await query<UserRow>(
    `SELECT id, email, email_lower AS "emailLower", name, password_hash AS "passwordHash",
            email_verified AS "emailVerified", roles, metadata, created_at AS "createdAt", updated_at AS "updatedAt"
     FROM users WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** Reads the row and locks it until the transaction ends, so read-modify-write is safe. */
export async function findUserForUpdate(
  db: Prisma.TransactionClient,
  id: string,
): Promise<UserRow | null> {
  const rows = await db.$queryRaw<
    { id: string }[]
  >`SELECT id FROM users WHERE id = ${id} FOR UPDATE`;
  return rows.length === 0 ? null : db.user.findUnique({ where: { id } });
}

export function listUsers(
  db: Db,
  filter: { email?: string | undefined; role?: string | undefined },
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<UserRow[]> {
  return db.user.findMany({
    where: {
      ...(filter.email !== undefined ? { emailLower: filter.email.toLowerCase() } : {}),
      ...(filter.role !== undefined ? { roles: { has: filter.role } } : {}),
      ...ascendingAfter(after),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

export function updateUser(db: Db, id: string, data: Prisma.UserUpdateInput): Promise<UserRow> {
  return db.user.update({ where: { id }, data });
}

export async function deleteUser(db: Db, id: string): Promise<void> {
  await db.user.delete({ where: { id } });
}
