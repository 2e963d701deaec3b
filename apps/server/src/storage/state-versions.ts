import { shareFreshReads } from '../lib/fresh-reads.js';
import { type CachedState, currentRequest, type StateVersions } from '../lib/state-versions.js';
import type { Connection } from './connection.js';

const COLUMNS: Record<CachedState, string> = {
  policies: 'policies',
  apiKeys: 'api_keys',
  userRoles: 'user_roles',
};

/** The one row of `state_versions`. */
export class StateVersionsRepository {
  constructor(private readonly c: Connection) {}

  async read(): Promise<StateVersions> {
    const rows = await this.c.sql<Record<CachedState, bigint | string | number>>(
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

  async bump(which: CachedState): Promise<void> {
    const column = COLUMNS[which];
    await this.c.sql(`UPDATE state_versions SET ${column} = ${column} + 1 WHERE id = 1`);
  }
}

/**
 * The counters every request checks its caches against (policy index, API keys, roles). They
 * belong to no feature: each feature that caches reads them, each that writes cached state
 * bumps them in its own transaction.
 * Other instances move them: each call gets a read that started after it (shared among
 * concurrent callers).
 */
export class StateVersionsSource {
  private readonly read: () => Promise<StateVersions>;

  constructor(
    private readonly rows: Pick<StateVersionsRepository, 'read' | 'bump'>,
    private readonly inTransaction: () => boolean = () => false,
  ) {
    this.read = shareFreshReads(() => rows.read());
  }

  current(): Promise<StateVersions> {
    // Inside a transaction the read is its own: it may see the transaction's uncommitted bumps,
    // which nobody else may share or keep, and it must not wait for a pool connection of its own.
    return this.inTransaction() ? this.rows.read() : this.read();
  }

  /**
   * The versions of the request in progress: read at its first use (its authentication), then
   * the same for the rest of it, so one request never mixes two states. Outside a request (a
   * job), a read of their current values.
   */
  ofRequest(): Promise<StateVersions> {
    const request = currentRequest();
    if (!request) return this.current();
    // A transaction's own read may hold its uncommitted bumps: not the request's to keep.
    if (!request.versions && this.inTransaction()) return this.rows.read();
    request.versions ??= this.current();
    return request.versions;
  }

  /**
   * In the transaction that makes the change, so no instance sees one without the other; after
   * the rows it changes are locked (every writer locks `state_versions` last, so none waits on
   * another holding it).
   */
  bump(which: CachedState): Promise<void> {
    return this.rows.bump(which);
  }
}

/** What a feature that writes cached state needs: to mark it stale. */
export type StaleMarker = Pick<StateVersionsSource, 'bump'>;

/** What a feature that caches state needs: the versions its request checks its caches against. */
export type RequestVersions = Pick<StateVersionsSource, 'ofRequest'>;
