import { AsyncLocalStorage } from 'node:async_hooks';

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

/** What one request carries in its async context: its state versions, once first read. */
export interface RequestScope {
  versions?: Promise<StateVersions>;
}

const requests = new AsyncLocalStorage<RequestScope>();

/** Runs `work` as one request: every read of the state versions within it shares one. */
export function asOneRequest<T>(work: () => T): T {
  return requests.run({}, work);
}

/** Runs `work` as part of no request (a background job's turn, even one a request kicked). */
export function outsideRequests<T>(work: () => T): T {
  return requests.exit(work);
}

/** The request in progress; undefined outside one (a background job). */
export function currentRequest(): RequestScope | undefined {
  return requests.getStore();
}
