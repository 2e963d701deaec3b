import type { SqlQuery } from '@secadmin/db';
import type { Db } from './db.js';

/** What each instance may cache, and the counter that says when it went stale. */
export interface StateVersions {
  policies: bigint;
  apiKeys: bigint;
  userRoles: bigint;
}

export async function readStateVersions(query: SqlQuery): Promise<StateVersions> {
  const rows = await query<Record<keyof StateVersions, bigint | string | number>>(
    `SELECT policies, api_keys AS "apiKeys", user_roles AS "userRoles" FROM state_versions WHERE id = 1`,
  );
  const row = rows[0];
  if (!row) throw new Error('state_versions has no row: the database was not migrated');
  return {
    policies: BigInt(row.policies),
    apiKeys: BigInt(row.apiKeys),
    userRoles: BigInt(row.userRoles),
  };
}

const COLUMNS = { policies: 'policies', apiKeys: 'api_keys', userRoles: 'user_roles' } as const;

/** In the transaction that makes the change, so no instance can see one without the other. */
export async function bumpStateVersion(db: Db, which: keyof StateVersions): Promise<void> {
  const column = COLUMNS[which];
  await db.$executeRawUnsafe(`UPDATE state_versions SET ${column} = ${column} + 1 WHERE id = 1`);
}
