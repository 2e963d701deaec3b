import type { Prisma } from '@secadmin/db';
import { ascendingAfter, type Connection, lockRow } from '../../storage/connection.js';
import type { ApiKeyRow } from './model.js';

export class ApiKeysRepository {
  constructor(private readonly c: Connection) {}

  insert(data: Prisma.ApiKeyCreateInput): Promise<ApiKeyRow> {
    return this.c.db.apiKey.create({ data });
  }

  /** Every authenticated request runs this: plain SQL. */
  async findByHash(secretHash: string): Promise<ApiKeyRow | null> {
    const rows = await this.c.sql<ApiKeyRow>(
      `SELECT id, name, principal, plan, rate_limit_per_minute AS "rateLimitPerMinute",
              secret_hash AS "secretHash", is_root AS "isRoot", expires_at AS "expiresAt", created_at AS "createdAt"
       FROM api_keys WHERE secret_hash = $1`,
      [secretHash],
    );
    return rows[0] ?? null;
  }

  /** Reads the row and locks it until the transaction ends. */
  async findForUpdate(id: string): Promise<ApiKeyRow | null> {
    return (await lockRow(this.c, 'api_keys', id))
      ? this.c.db.apiKey.findUnique({ where: { id } })
      : null;
  }

  findRoot(): Promise<ApiKeyRow | null> {
    return this.c.db.apiKey.findFirst({ where: { isRoot: true } });
  }

  updateRoot(
    id: string,
    data: { secretHash?: string; rateLimitPerMinute: number },
  ): Promise<ApiKeyRow> {
    return this.c.db.apiKey.update({ where: { id }, data });
  }

  /** Every key, or only the non-root keys of `principal`. */
  list(
    principal: string | undefined,
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<ApiKeyRow[]> {
    return this.c.db.apiKey.findMany({
      where: {
        ...(principal !== undefined ? { principal, isRoot: false } : {}),
        ...ascendingAfter(after),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take,
    });
  }

  async delete(id: string): Promise<void> {
    await this.c.db.apiKey.delete({ where: { id } });
  }

  /** Deletes the principal's keys; returns their ids. */
  async deleteOfPrincipal(principal: string): Promise<string[]> {
    const keys = await this.c.db.apiKey.findMany({ where: { principal }, select: { id: true } });
    await this.c.db.apiKey.deleteMany({ where: { principal } });
    return keys.map((key) => key.id);
  }
}
