/**
 * Shares one read among concurrent callers without ever handing a caller a read that
 * started before it asked: a change committed before the call is always seen. At most one
 * read is in flight; callers arriving meanwhile share the single read queued behind it.
 * Under load this turns one query per request into one query per round trip.
 */
export function shareFreshReads<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let queued: Promise<T> | undefined;

  const start = (): Promise<T> => {
    const current = read();
    inFlight = current;
    current
      .finally(() => {
        if (inFlight === current) inFlight = undefined;
      })
      .catch(() => {});
    return current;
  };

  return () => {
    if (!inFlight) return start();
    if (!queued) {
      queued = inFlight
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return start();
        });
    }
    return queued;
  };
}
