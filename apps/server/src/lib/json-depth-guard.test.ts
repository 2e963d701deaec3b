import { describe, expect, it } from 'vitest';
import { JsonDepthGuard, JsonTooDeepError, JsonTooManyKeysError } from './json-depth-guard.js';

/** The path the guard reports for `text`, scanned in slices of `slice` characters; none if it passes. */
function tooDeepPath(text: string, maxDepth: number, slice = text.length) {
  const guard = new JsonDepthGuard(text, maxDepth, Number.POSITIVE_INFINITY);
  try {
    for (let at = 0; at < text.length; at += slice) guard.scanTo(at + slice);
  } catch (error) {
    if (error instanceof JsonTooDeepError) return error.path;
    throw error;
  }
  return undefined;
}

describe('JsonDepthGuard', () => {
  it('stops at the end of the text when asked to scan past it', () => {
    // Callers ask for a slice at a time: a small body's one slice reaches far past its end,
    // and every character position up to there cost a turn of the loop (350 µs a request).
    const text = '{"principal":"user:u17","context":{"ip":"10.1.2.3"}}';
    const guard = new JsonDepthGuard(text, 8, 8);
    guard.scanTo(64 * 1024);
    expect(guard.scannedTo).toBe(text.length);
    guard.scanTo(text.length + 1);
    expect(guard.scannedTo).toBe(text.length);
  });

  it('passes nesting up to the limit and reports the first object or array past it', () => {
    expect(tooDeepPath('{"a":{"b":[1]}}', 3)).toBeUndefined();
    expect(tooDeepPath('{"a":{"b":[[1]]}}', 3)).toEqual(['a', 'b', 0]);
    expect(tooDeepPath(`{"entries":${'['.repeat(100)}${']'.repeat(100)}}`, 32)).toEqual([
      'entries',
      ...Array(31).fill(0),
    ]);
  });

  it('names array indexes and keys, escaped keys decoded, as the strict-input walk does', () => {
    const text = '[1, {"x": [2]}, {"k\\"e\\u0079": 3, "deep": {"z": [[]]}}]';
    expect(tooDeepPath(text, 4)).toEqual([2, 'deep', 'z', 0]);
  });

  it('ignores brackets, quotes and commas inside strings, whatever the slices', () => {
    const text = '{"[[[": "]]]{{{", "a\\\\": "\\"[[[,", "b": [0, "x,[", {"c": [[]]}]}';
    for (const slice of [1, 2, 3, 7, text.length])
      expect(tooDeepPath(text, 3, slice), `slice ${slice}`).toEqual(['b', 2, 'c']);
    expect(tooDeepPath(text, 5)).toBeUndefined();
  });

  it('reports the first object with more keys than allowed, whatever the slices', () => {
    const keysPast = (text: string, maxKeys: number, slice: number) => {
      const guard = new JsonDepthGuard(text, 32, maxKeys);
      try {
        for (let at = 0; at < text.length; at += slice) guard.scanTo(at + slice);
      } catch (error) {
        if (error instanceof JsonTooManyKeysError) return error.path;
        throw error;
      }
      return undefined;
    };
    // Commas and quotes in keys and values, nested objects and arrays: only keys count.
    const text = '{"a,\\\\":"x,\\\\\\"y", "b": [{"c": 1, "d": {"e": 2}, "f": [3]}]}';
    for (const slice of [1, 3, text.length]) {
      expect(keysPast(text, 2, slice), `slice ${slice}`).toEqual(['b', 0]);
      expect(keysPast(text, 3, slice), `slice ${slice}`).toBeUndefined();
    }
    expect(keysPast('{"a": 1, "b": 2}', 1, 2)).toEqual([]);
    expect(keysPast('[{"x": 1}, {"x": 1, "y": 2}]', 1, 5)).toEqual([1]);
  });
});
