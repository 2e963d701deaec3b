import { describe, expect, it } from 'vitest';
import { Cursors } from './cursor.js';

const ID = /^user_[0-9a-z]{26}$/;
const position = { at: new Date('2026-11-26T10:00:00Z'), id: 'user_01jf0000000000000000000000' };

function altered(cursor: string, change: (value: Record<string, unknown>) => void): string {
  const [payload, mac] = cursor.split('.') as [string, string];
  const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  change(value);
  return `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${mac}`;
}

describe('signed cursors', () => {
  const cursors = new Cursors('secret-a');
  const cursor = cursors.encode('users', position);

  it('round-trips a position of its own list', () => {
    expect(cursors.decode('users', ID, cursor)).toEqual(position);
    expect(cursors.decode('users', ID, undefined)).toBeUndefined();
  });

  it('refuses any altered field, another list, another secret and garbage', () => {
    const refused = [
      altered(cursor, (v) => {
        v.t = 9007199254740991;
      }),
      altered(cursor, (v) => {
        v.t = (v.t as number) + 1;
      }),
      altered(cursor, (v) => {
        v.i = 'user_01jf0000000000000000000001';
      }),
      altered(cursor, (v) => {
        v.s = 'logs';
      }),
      cursor.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      new Cursors('secret-b').encode('users', position),
      cursor.split('.')[0] as string,
      '',
      'not a cursor',
    ];
    for (const forged of refused)
      expect(() => cursors.decode('users', ID, forged), forged).toThrow('The cursor is invalid.');
    expect(() => cursors.decode('policies', ID, cursor)).toThrow('The cursor is invalid.');
  });
});
