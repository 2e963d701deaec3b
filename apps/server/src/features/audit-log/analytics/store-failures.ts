import { DomainError, Unavailable } from '../../../lib/errors.js';
import { isTimeout } from '../../../storage/analytics/analytics-store.js';

/**
 * A read of the analytics store for a search or statistics: a statement the engine stopped at
 * its time bound, or a store that cannot answer (down, unreachable, closed), is a 503 with
 * `Retry-After`, never a 500. The service's own errors pass unchanged.
 */
export async function readStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (isTimeout(error))
      throw new Unavailable(
        'The search store did not finish this request within its time bound and stopped it; ask for less at once (a narrower time range or query), or retry later.',
        2,
        { cause: error },
      );
    throw new Unavailable(
      'The search store cannot answer right now; search and statistics are back once it can. Listing and reading entries (GET /v1/logs) are not affected.',
      5,
      { cause: error },
    );
  }
}
