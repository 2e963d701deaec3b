import { describe, expect, it } from 'vitest';
import { JsonDepthGuard, JsonTooDeepError } from './json-depth-guard.js';

/** The path the guard reports for `text`, scanned in slices of `slice` characters; none if it passes. */
function tooDeepPath(text: string, maxDepth: number, slice = text.length) {
  const guard = new JsonDepthGuard(text, maxDepth);
  try {
    for (let at = 0; at < text.length; at += slice) guard.scanTo(at + slice);
  } catch (error) {
    if (error instanceof JsonTooDeepError) return error.path;
    throw error;
  }
  return undefined;
}

describe('JsonDepthGuard', () => {
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
});
