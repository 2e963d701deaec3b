import { ApiError } from '../http/errors.js';

/** A keyset position: the sort timestamp and the id that breaks ties. */
export interface KeysetPosition {
  at: Date;
  id: string;
}

const badCursor = () =>
  new ApiError('invalid_request', 'The cursor is invalid.', [
    { field: 'cursor', message: 'must be a nextCursor returned by this list' },
  ]);

/** Opaque to clients: base64url of `{s: scope, t: ms, i: id}`. */
export function encodeCursor(scope: string, position: KeysetPosition): string {
  return Buffer.from(
    JSON.stringify({ s: scope, t: position.at.getTime(), i: position.id }),
  ).toString('base64url');
}

/** A cursor from another list, or one that was altered into nonsense, is a 400. */
export function decodeCursor(scope: string, idPattern: RegExp, cursor: string): KeysetPosition {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw badCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const { s, t, i } = (value ?? {}) as { s?: unknown; t?: unknown; i?: unknown };
  if (s !== scope || typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0) throw badCursor();
  if (typeof i !== 'string' || !idPattern.test(i)) throw badCursor();
  return { at: new Date(t), id: i };
}

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

/**
 * A page from `limit + 1` rows read after the cursor: the extra row only says that
 * more follow, and the cursor points at the last row returned.
 */
export function pageFrom<T extends { id: string }>(
  rows: T[],
  limit: number,
  scope: string,
  sortedAt: (row: T) => Date,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextCursor:
      rows.length > limit && last
        ? encodeCursor(scope, { at: sortedAt(last), id: last.id })
        : undefined,
  };
}
