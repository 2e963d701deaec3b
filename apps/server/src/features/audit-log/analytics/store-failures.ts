import { DomainError, Unavailable } from '../../../lib/errors.js';

/**
 * A read of the analytics store for a search or statistics. The store itself answers a
 * statement stopped at its time bound or a store it cannot reach with `Unavailable`
 * (`withStoreErrors`); any other failure of the engine is a 503 with `Retry-After` here, never a
 * 500. The service's own errors pass unchanged.
 */
export async function readStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new Unavailable(
      'The search store cannot answer right now; search and statistics are back once it can. Listing and reading entries (GET /v1/logs) are not affected.',
      5,
      { cause: error },
    );
  }
}
