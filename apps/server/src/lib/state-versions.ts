/**
 * What each instance may cache, and the counter that says when it went stale: every request
 * reads them once and checks its caches against them (`storage/state-versions.ts`).
 */
export interface StateVersions {
  policies: bigint;
  apiKeys: bigint;
  /** Users' roles and `active` flags: what every decision about a user principal reads. */
  userRoles: bigint;
}

/** One kind of cached state. */
export type CachedState = keyof StateVersions;
