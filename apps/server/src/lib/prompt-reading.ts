/**
 * A value read on demand that never keeps its caller waiting long: the caller gets the value
 * read now if it comes within `withinMs`, else the last one read (`first` before any), and the
 * read goes on behind the answer. One read at a time; `read` must not reject.
 */
export function promptReading<T>(
  read: () => Promise<T>,
  first: T,
  withinMs: number,
): () => Promise<T> {
  let last = first;
  let reading: Promise<T> | undefined;
  return async () => {
    reading ??= read()
      .then((value) => {
        last = value;
        return value;
      })
      .finally(() => {
        reading = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(last), withinMs);
    });
    try {
      return await Promise.race([reading, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
