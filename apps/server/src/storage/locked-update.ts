import { NotFound } from '../lib/errors.js';
import { type Precondition, requirePrecondition, type Versioned } from '../lib/etag.js';
import type { CachedState } from '../lib/state-versions.js';
import type { StaleMarker } from './state-versions.js';
import type { Store } from './store.js';

/** One change of a stored resource, in the order `lockedUpdate` runs its steps. */
export interface LockedChange<Row, T> {
  /** The resource's name in a 404 or 412 (`user`, `API key`). */
  what: string;
  /** Reads the row and locks it until the transaction ends; null when there is none. */
  lock: () => Promise<Row | null>;
  /** The request's `If-Match`, checked against the locked row's entity tag. */
  precondition?: Row extends Versioned ? Precondition | undefined : never;
  /** Checks what needs the current row, writes, and says which cached state it made stale. */
  write: (current: Row) => Promise<{ result: T; stale: readonly CachedState[] }>;
  /** The change's audit entry. */
  record: (result: T) => Promise<void>;
}

/**
 * Lock the row, check the precondition, write, bump the state versions the write made stale,
 * record the change: in one transaction, so nothing slips between the check and the write and
 * the change, its version and its entry commit together. The counters come after every row the
 * write locks, as in every writer, so that no two transactions wait on each other.
 */
export function lockedUpdate<Row, T>(
  deps: { store: Pick<Store, 'transaction'>; versions: StaleMarker },
  change: LockedChange<Row, T>,
): Promise<T> {
  return deps.store.transaction(async () => {
    const current = await change.lock();
    if (!current) throw new NotFound(change.what);
    if (change.precondition)
      requirePrecondition(change.precondition, current as Row & Versioned, change.what);
    const { result, stale } = await change.write(current);
    for (const which of stale) await deps.versions.bump(which);
    await change.record(result);
    return result;
  });
}
