import type { ApiKey, Prisma, SqlQuery } from '@secadmin/db';
import { ascendingAfter, type Db } from './db.js';

export type ApiKeyRow = ApiKey;

export function insertApiKey(db: Db, data: Prisma.ApiKeyCreateInput): Promise<ApiKeyRow> {
  return db.apiKey.create({ data });
}

/** Every authenticated request runs this: straight to the driver. */
export async function findApiKeyByHash(
  query: SqlQuery,
  secretHash: string,
): Promise<ApiKeyRow | null> {
  const rows = await query<ApiKeyRow>(
    `SELECT id, name, principal, plan, rate_limit_per_minute AS "rateLimitPerMinute",
            secret_hash AS "secretHash", is_root AS "isRoot", expires_at AS "expiresAt", created_at AS "createdAt"
     FROM api_keys WHERE secret_hash = $1`,
    [secretHash],
  );
  return rows[0] ?? null;
}

export function findApiKey(db: Db, id: string): Promise<ApiKeyRow | null> {
  return db.apiKey.findUnique({ where: { id } });
}

export function findRootKey(db: Db): Promise<ApiKeyRow | null> {
  return db.apiKey.findFirst({ where: { isRoot: true } });
}

export function updateRootKey(
  db: Db,
  id: string,
  data: { secretHash?: string; rateLimitPerMinute: number },
): Promise<ApiKeyRow> {
  return db.apiKey.update({ where: { id }, data });
}

export function listApiKeys(
  db: Db,
  principal: string | undefined,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<ApiKeyRow[]> {
  return db.apiKey.findMany({
    where: { ...(principal !== undefined ? { principal } : {}), ...ascendingAfter(after) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take,
  });
}

export async function deleteApiKey(db: Db, id: string): Promise<void> {
  await db.apiKey.delete({ where: { id } });
}

export function deleteApiKeysOfPrincipal(db: Db, principal: string): Promise<Prisma.BatchPayload> {
  return db.apiKey.deleteMany({ where: { principal } });
}
