/**
 * Glob patterns where `*` matches any run of characters (including `/`) and every
 * other character is literal. `${self}` is substituted *after* splitting on `*`, so a
 * `*` inside the bound value stays literal.
 *
 * Matching is linear in the pattern and the text, whatever either holds: the literal
 * parts between `*`s are placed greedily left to right (leftmost placement is optimal
 * when `*` is the only wildcard), each found with Knuth–Morris–Pratt from where the last
 * one ended, so no character of the text is compared more than twice per part.
 */
export const SELF = '${self}';

/** What `${self}` stands for in a request by `principal`: its id, after the type and `:`. */
export const selfOf = (principal: string): string => principal.slice(principal.indexOf(':') + 1);

/** A literal run between `*`s, with its KMP failure table. */
interface Literal {
  text: string;
  /** `failure[i]`: length of the longest proper border of `text[0..i]`. */
  failure: Int32Array;
}

export interface GlobPattern {
  /** The pattern split on `*`: `a*b*c` → ['a', 'b', 'c']. One part: no wildcard. */
  parts: readonly string[];
  usesSelf: boolean;
  /** The middle parts (between the first and last `*`) that are not empty, compiled. */
  middle: readonly Literal[];
}

function compileLiteral(text: string): Literal {
  const failure = new Int32Array(text.length);
  let border = 0;
  for (let i = 1; i < text.length; i++) {
    while (border > 0 && text.charCodeAt(i) !== text.charCodeAt(border))
      border = failure[border - 1] as number;
    if (text.charCodeAt(i) === text.charCodeAt(border)) border++;
    failure[i] = border;
  }
  return { text, failure };
}

function compileParts(parts: readonly string[], usesSelf: boolean): GlobPattern {
  const middle = parts
    .slice(1, -1)
    .filter((part) => part !== '')
    .map(compileLiteral);
  return { parts, usesSelf, middle };
}

export function compileGlob(pattern: string): GlobPattern {
  return compileParts(pattern.split('*'), pattern.includes(SELF));
}

/** A bound `${self}` value that could reach beyond one path segment never matches. */
function isSafeSelf(self: string): boolean {
  return self !== '' && !self.includes('/') && !self.includes('*');
}

/** Where `literal` first ends in `text[from, end)` (an index one past its end), or -1. */
function endOfFirst(literal: Literal, text: string, from: number, end: number): number {
  const { text: needle, failure } = literal;
  let matched = 0;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    while (matched > 0 && c !== needle.charCodeAt(matched))
      matched = failure[matched - 1] as number;
    if (c === needle.charCodeAt(matched)) matched++;
    if (matched === needle.length) return i + 1;
  }
  return -1;
}

function matchCompiled(glob: GlobPattern, text: string): boolean {
  const { parts } = glob;
  const first = parts[0] as string;
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1] as string;
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  let position = first.length;
  const end = text.length - last.length;
  for (const literal of glob.middle) {
    const after = endOfFirst(literal, text, position, end);
    if (after === -1) return false;
    position = after;
  }
  return true;
}

export function matchGlob(glob: GlobPattern, text: string, self?: string): boolean {
  if (!glob.usesSelf) return matchCompiled(glob, text);
  if (self === undefined || !isSafeSelf(self)) return false;
  const bound = glob.parts.map((part) => part.replaceAll(SELF, self));
  return matchCompiled(compileParts(bound, false), text);
}
