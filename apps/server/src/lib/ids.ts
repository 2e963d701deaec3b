import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

// Every request gets an id: draw random bytes from the CSPRNG in blocks, not 10 at a time.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomBytes10(): Buffer {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 10;
  return pool.subarray(poolOffset - 10, poolOffset);
}

/** A lowercase ULID: 48 bits of milliseconds, 80 random bits, Crockford base32. */
export function ulid(now = Date.now()): string {
  if (!(now >= 0 && now < 2 ** 48)) throw new RangeError(`a ULID cannot hold the time ${now}`);
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes10();
  let random = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      random += ALPHABET[(buffer >> bits) & 31];
    }
  }
  return time + random;
}

export type IdPrefix = 'user' | 'pol' | 'log' | 'exp' | 'key' | 'req' | 'lst';

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

/** The text of an id `newId(prefix)` makes, for a regular expression (unanchored). */
export const idText = (prefix: IdPrefix) => `${prefix}_[${ALPHABET}]{26}`;

/** Exactly an id `newId(prefix)` makes. */
export const idPattern = (prefix: IdPrefix) => new RegExp(`^${idText(prefix)}$`);
