import type { Connection } from './connection.js';

/** What each instance may cache, and the counter that says when it went stale. */
export interface StateVersions {
  policies: bigint;
  apiKeys: bigint;
  userRoles: bigint;
}

const COLUMNS = { policies: 'policies', apiKeys: 'api_keys', userRoles: 'user_roles' } as const;

export class StateVersionsRepository {
  constructor(private readonly c: Connection) {}

  async read(): Promise<StateVersions> {
    const rows = await this.c.sql<Record<keyof StateVersions, bigint | string | number>>(
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

  /** In the transaction that makes the change, so no instance can see one without the other. */
  async bump(which: keyof StateVersions): Promise<void> {
    const column = COLUMNS[which];
    await this.c.db.$executeRawUnsafe(
      `UPDATE state_versions SET ${column} = ${column} + 1 WHERE id = 1`,
    );
  }
}
