import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Invalid } from './errors.js';

/** A keyset position: the sort timestamp and the id that breaks ties. */
export interface KeysetPosition {
  at: Date;
  id: string;
}

/** The scope of a filtered list: the list's name and the filters that shape it. */
export const listScope = (list: string, filters: Record<string, unknown>): string =>
  `${list} ${JSON.stringify(filters)}`;

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

const badCursor = () =>
  new Invalid(
    [{ field: 'cursor', message: 'must be a nextCursor returned by this list' }],
    'The cursor is invalid.',
  );

const MAC_BYTES = 16;
/** A short tag of the list and its filters: a cursor of `users?role=a` is no cursor of `users`. */
const scopeTag = (scope: string) =>
  createHash('sha256').update(scope).digest('base64url').slice(0, 12);
/** Room for the longest position a list keeps (an AuthZEN search's last literal, 448 characters). */
const CURSOR = /^[A-Za-z0-9_-]{1,2500}\.[A-Za-z0-9_-]{22}$/;
/** The latest instant a Date can hold: a position beyond it was never issued. */
const MAX_TIME = 8.64e15;

/**
 * Cursors are opaque to clients: base64url of `{s: scope tag, t: ms, i: id}`, then `.` and a
 * truncated HMAC-SHA256 of it under a key derived from `SECADMIN_SECRET`. A cursor with any
 * field altered, or one from another list, is refused before any field is read.
 */
export class Cursors {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('secadmin-cursor-v1').digest();
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }

  encode(scope: string, position: KeysetPosition): string {
    const payload = Buffer.from(
      JSON.stringify({ s: scopeTag(scope), t: position.at.getTime(), i: position.id }),
    ).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /**
   * The position in a cursor of list `scope` (which names the list and its filters);
   * `undefined` for no cursor; 400 for anything else.
   */
  decode(scope: string, idPattern: RegExp, cursor: string | undefined): KeysetPosition | undefined {
    if (cursor === undefined) return undefined;
    if (!CURSOR.test(cursor)) throw badCursor();
    const [payload, mac] = cursor.split('.') as [string, string];
    // The text is compared, not the decoded bytes: the last base64 character has spare bits.
    const expected = Buffer.from(this.mac(payload).toString('base64url'));
    if (!timingSafeEqual(Buffer.from(mac), expected)) throw badCursor();
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw badCursor();
    }
    const { s, t, i } = (value ?? {}) as { s?: unknown; t?: unknown; i?: unknown };
    if (
      s !== scopeTag(scope) ||
      typeof t !== 'number' ||
      !Number.isSafeInteger(t) ||
      t < 0 ||
      t > MAX_TIME
    )
      throw badCursor();
    if (typeof i !== 'string' || !idPattern.test(i)) throw badCursor();
    return { at: new Date(t), id: i };
  }

  /**
   * A page from `limit + 1` rows read after the cursor: the extra row only says that
   * more follow, and the cursor points at the last row returned.
   */
  page<T extends { id: string }>(
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
          ? this.encode(scope, { at: sortedAt(last), id: last.id })
          : undefined,
    };
  }
}
