/** The JSON text nests objects and arrays deeper than allowed; `path` leads to the first such one. */
export class JsonTooDeepError extends Error {
  constructor(readonly path: (number | string)[]) {
    super('JSON nested too deep');
  }
}

/** An object of the JSON text has more keys than allowed; `path` leads to it. */
export class JsonTooManyKeysError extends Error {
  constructor(readonly path: (number | string)[]) {
    super('JSON object with too many keys');
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * Watches the nesting of a JSON text as it is read, before any parser builds it: a hostile body
 * of millions of `[` would otherwise be built in full, for seconds, before its depth is known.
 * A linear scan that knows only strings and brackets, fed in consecutive slices of `text`; it
 * throws `JsonTooDeepError` at the first object or array that opens past `maxDepth` (the
 * outermost is level 1), and `JsonTooManyKeysError` at the first object whose key count passes
 * `maxKeys` (listing, sorting or checking the keys of one huge object is a long step that
 * cannot be cut). What is not JSON is left to the parser.
 *
 * The open objects and arrays are kept in parallel arrays of numbers indexed by level, not as
 * an object per level: a text of many small objects made the scan cost more than the parse.
 */
export class JsonDepthGuard {
  /** Open levels; level `d` (0 = outermost) is described by the arrays below at index `d`. */
  private depth = 0;
  private readonly isArray: boolean[] = [];
  /** Index of the current item (arrays). */
  private readonly index: number[] = [];
  /** Where the current key's quoted text starts and ends in the text (objects). */
  private readonly keyFrom: number[] = [];
  private readonly keyTo: number[] = [];
  private readonly expectsKey: boolean[] = [];
  /** Keys seen so far (objects). */
  private readonly keys: number[] = [];
  private inString = false;
  private escaped = false;
  private scanned = 0;
  /** Where the next backslash and quote are from where they were last looked for (none: the text's length). */
  private backslashAt = -1;
  private quoteAt = -1;
  /** Objects, arrays and commas seen outside strings so far: about the values the text holds. */
  values = 0;

  /** The distinct key names seen, while they are counted (see `keyNames`). */
  private names: Set<string> | undefined;

  /**
   * `countKeyNamesUpTo`: count the distinct key names, up to that many (`keyNames`): a parser
   * builds a new object shape for each, and a text of many names costs it far more per value.
   */
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly maxKeys: number,
    private readonly countKeyNamesUpTo = 0,
  ) {
    if (countKeyNamesUpTo > 0) this.names = new Set();
  }

  /** How far the text has been scanned. */
  get scannedTo(): number {
    return this.scanned;
  }

  /** The distinct key names seen so far (quoted as written), or Infinity past the count asked for. */
  get keyNames(): number {
    return this.names ? this.names.size : this.countKeyNamesUpTo > 0 ? Number.POSITIVE_INFINITY : 0;
  }

  private countName(from: number, to: number): void {
    const names = this.names as Set<string>;
    names.add(this.text.slice(from, to));
    if (names.size > this.countKeyNamesUpTo) this.names = undefined;
  }

  /** Scans the text up to `to` (exclusive; at most its end), from where the last call stopped. */
  scanTo(to: number): void {
    const { text, isArray, index, keyFrom, keyTo, expectsKey, keys } = this;
    let { depth, inString, escaped, values, backslashAt, quoteAt } = this;
    const end = Math.min(to, text.length);
    try {
      for (let at = this.scanned; at < end; at++) {
        if (inString) {
          if (escaped) {
            escaped = false;
            continue;
          }
          // Inside a string only a quote or a backslash matters: jump to the next one (where
          // each is, is kept: a string longer than the slice must not be searched again).
          if (backslashAt < at) backslashAt = this.next('\\', at);
          if (quoteAt < at) quoteAt = this.next('"', at);
          const stop = Math.min(quoteAt, backslashAt);
          if (stop >= end) {
            at = end - 1;
            continue;
          }
          at = stop;
          if (stop === backslashAt) escaped = true;
          else {
            inString = false;
            const top = depth - 1;
            if (top >= 0 && !isArray[top] && (keyTo[top] ?? 0) < (keyFrom[top] ?? 0)) {
              keyTo[top] = at + 1;
              if (this.names) this.countName(keyFrom[top] ?? 0, at + 1);
            }
          }
          continue;
        }
        const code = text.charCodeAt(at);
        const top = depth - 1;
        if (code === QUOTE) {
          inString = true;
          if (top >= 0 && expectsKey[top]) {
            const count = (keys[top] ?? 0) + 1;
            keys[top] = count;
            if (count > this.maxKeys) {
              this.depth = depth;
              throw new JsonTooManyKeysError(this.pathThrough(top));
            }
            expectsKey[top] = false;
            keyFrom[top] = at;
            keyTo[top] = -1;
          }
        } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
          if (depth >= this.maxDepth) {
            this.depth = depth;
            throw new JsonTooDeepError(this.pathThrough(depth));
          }
          values++;
          const array = code === OPEN_ARRAY;
          isArray[depth] = array;
          index[depth] = 0;
          keyFrom[depth] = 0;
          keyTo[depth] = -1;
          expectsKey[depth] = !array;
          keys[depth] = 0;
          depth++;
        } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
          if (depth > 0) depth--;
        } else if (code === COMMA && top >= 0) {
          values++;
          if (isArray[top]) index[top] = (index[top] ?? 0) + 1;
          else expectsKey[top] = true;
        }
      }
    } finally {
      this.depth = depth;
      this.inString = inString;
      this.escaped = escaped;
      this.values = values;
      this.backslashAt = backslashAt;
      this.quoteAt = quoteAt;
    }
    this.scanned = Math.max(this.scanned, end);
  }

  /** Where the next `character` is from `at` on, or the text's length. */
  private next(character: string, at: number): number {
    const found = this.text.indexOf(character, at);
    return found === -1 ? this.text.length : found;
  }

  /** The steps from the outermost value down through the current child of the first `levels`. */
  private pathThrough(levels: number): (number | string)[] {
    const path: (number | string)[] = [];
    for (let level = 0; level < levels; level++) {
      if (this.isArray[level]) {
        path.push(this.index[level] as number);
        continue;
      }
      const quoted = this.text.slice(this.keyFrom[level], this.keyTo[level]);
      try {
        path.push(JSON.parse(quoted) as string);
      } catch {
        path.push(quoted.slice(1, -1));
      }
    }
    return path;
  }
}
