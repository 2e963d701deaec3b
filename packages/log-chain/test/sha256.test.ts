import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex, sha256Portable } from '../src/sha256.js';

describe('sha256Hex', () => {
  it('matches the FIPS 180-4 examples, natively and in plain JavaScript', () => {
    for (const sha256 of [sha256Portable, sha256Hex]) {
      expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(sha256('abc')).toBe(
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      );
      expect(sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      );
    }
  });

  it('in plain JavaScript matches node:crypto on UTF-8 text of every length around the block boundaries', () => {
    for (let length = 0; length < 300; length++) {
      const text = `${randomBytes(length).toString('latin1')}€😀\ud800`;
      expect(sha256Portable(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });
});
