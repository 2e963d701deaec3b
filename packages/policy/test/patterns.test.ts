import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, matchGlob, SELF } from '../src/patterns.js';

/** The semantics, spelled as a regular expression: `*` is `[\s\S]*`, the rest literal. */
function reference(pattern: string, text: string, self?: string): boolean {
  if (pattern.includes(SELF) && (self === undefined || !/^[^/*]+$/.test(self))) return false;
  const source = pattern
    .split('*')
    .map((part) =>
      (self === undefined ? part : part.replaceAll(SELF, self)).replace(
        /[\\^$.|?+()[\]{}]/g,
        '\\$&',
      ),
    )
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`).test(text);
}

// A small alphabet makes overlaps, repeats and near misses common.
const symbol = fc.constantFrom('a', 'b', '/', '.', '$', '(');
const text = fc.string({ unit: symbol, maxLength: 24 });
const pattern = fc.string({
  unit: fc.constantFrom('a', 'b', '/', '.', '$', '(', '*'),
  maxLength: 12,
});

describe('matchGlob', () => {
  it('agrees with a regular expression on random patterns and texts', () => {
    fc.assert(
      fc.property(pattern, text, (p, t) => matchGlob(compileGlob(p), t) === reference(p, t)),
      { numRuns: 5000 },
    );
  });

  it('agrees when the text is built to contain the pattern’s parts', () => {
    const built = fc
      .tuple(pattern, fc.array(text, { minLength: 13, maxLength: 13 }))
      .map(([p, fillers]) => {
        const parts = p.split('*');
        const t = parts.map((part, i) => `${part}${i < parts.length - 1 ? fillers[i] : ''}`);
        return [p, t.join('')] as const;
      });
    fc.assert(
      fc.property(built, ([p, t]) => matchGlob(compileGlob(p), t) === reference(p, t)),
      { numRuns: 3000 },
    );
  });

  it('agrees with a bound ${self}', () => {
    const withSelf = fc
      .tuple(pattern, fc.nat(12))
      .map(([p, at]) => `${p.slice(0, at)}${SELF}${p.slice(at)}`);
    const self = fc.string({ unit: symbol, minLength: 0, maxLength: 4 });
    fc.assert(
      fc.property(
        withSelf,
        text,
        self,
        (p, t, s) => matchGlob(compileGlob(p), t, s) === reference(p, t, s),
      ),
      { numRuns: 3000 },
    );
  });

  it('matches the cases the semantics name', () => {
    const m = (p: string, t: string, self?: string) => matchGlob(compileGlob(p), t, self);
    expect(m('*', '')).toBe(true);
    expect(m('documents/*', 'documents/1/v/2')).toBe(true);
    expect(m('users/*/keys/*', 'users/1/keys/')).toBe(true);
    expect(m('users/*/keys/*', 'users/1/key')).toBe(false);
    expect(m('a*a', 'a')).toBe(false);
    expect(m('*aab*', 'aaab')).toBe(true);
    expect(m('*abab*c', 'abaababc')).toBe(true);
    expect(m('users/${self}', 'users/42', '42')).toBe(true);
    expect(m('users/${self}', 'users/*', '*')).toBe(false);
  });

  it('reads each character of the text at most twice per part, on patterns that make a naive scan quadratic', () => {
    // `*aaa…ab*` against `aaa…a`: every placement of the part nearly matches. A naive scan
    // restarting at each placement reads about 150 characters per character of the text.
    // (How fast this is, is the bench row "glob match, a pattern that makes a naive scan quadratic".)
    let reads = 0;
    class CountingText extends String {
      override charCodeAt(index: number): number {
        reads++;
        return super.charCodeAt(index);
      }
    }
    const text = `${'a'.repeat(508)}0`;
    const counted = new CountingText(text) as unknown as string;
    expect(matchGlob(compileGlob(`*${'a'.repeat(150)}b*`), counted)).toBe(false);
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(2 * text.length);
    reads = 0;
    expect(matchGlob(compileGlob(`*${'a'.repeat(150)}*${'a'.repeat(150)}b*`), counted)).toBe(false);
    expect(reads).toBeLessThanOrEqual(2 * 2 * text.length);
  });
});
