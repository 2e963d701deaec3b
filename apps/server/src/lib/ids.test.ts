import { expect, it } from 'vitest';
import { newId } from './ids.js';

it('makes prefixed lowercase ULIDs that never repeat, across refills of the random pool', () => {
  const now = Date.now();
  const ids = Array.from({ length: 10_000 }, () => newId('req', now));
  for (const id of ids.slice(0, 50)) expect(id).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids.map((id) => id.slice(-16))).size).toBe(ids.length);
});

it('refuses a time a ULID cannot hold, rather than writing `undefined` into the id', () => {
  expect(() => newId('log', -1)).toThrow(RangeError);
  expect(() => newId('log', 2 ** 48)).toThrow(RangeError);
  expect(newId('log', 0)).toMatch(/^log_0000000000[0-9a-hjkmnp-tv-z]{16}$/);
});

it('counts on within a millisecond, so the ids of one ingest batch sort in request order', () => {
  const now = Date.now();
  const ids = Array.from({ length: 1_000 }, () => newId('log', now));
  expect([...ids].sort()).toEqual(ids);
  const later = newId('log', now + 1);
  expect(later > (ids.at(-1) as string)).toBe(true);
});
