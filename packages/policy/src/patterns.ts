/**
 * Glob patterns where `*` matches any run of characters (including `/`) and every
 * other character is literal. `${self}` is substituted *after* splitting on `*`, so a
 * `*` inside the bound value stays literal.
 */
export const SELF = '${self}';

export interface GlobPattern {
  /** The pattern split on `*`: `a*b*c` → ['a', 'b', 'c']. One part: no wildcard. */
  parts: readonly string[];
  usesSelf: boolean;
}

export function compileGlob(pattern: string): GlobPattern {
  return { parts: pattern.split('*'), usesSelf: pattern.includes(SELF) };
}

/** A bound `${self}` value that could reach beyond one path segment never matches. */
function isSafeSelf(self: string): boolean {
  return self !== '' && !self.includes('/') && !self.includes('*');
}

function matchParts(parts: readonly string[], text: string): boolean {
  const first = parts[0] as string;
  if (parts.length === 1) return text === first;
  const last = parts[parts.length - 1] as string;
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  // Leftmost placement of each middle part is optimal for `*`-only globs.
  let position = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (part === '') continue;
    const at = text.indexOf(part, position);
    if (at === -1 || at + part.length > end) return false;
    position = at + part.length;
  }
  return true;
}

export function matchGlob(glob: GlobPattern, text: string, self?: string): boolean {
  if (!glob.usesSelf) return matchParts(glob.parts, text);
  if (self === undefined || !isSafeSelf(self)) return false;
  return matchParts(
    glob.parts.map((part) => part.replaceAll(SELF, self)),
    text,
  );
}
