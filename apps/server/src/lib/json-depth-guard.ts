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
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** An open object or array: where it is in its parent, and what its next child will be. */
interface Level {
  isArray: boolean;
  /** Index of the current item (arrays). */
  index: number;
  /** Where the current key's quoted text starts and ends in the text (objects). */
  keyFrom: number;
  keyTo: number;
  expectsKey: boolean;
  /** Keys seen so far (objects). */
  keys: number;
}

/**
 * Watches the nesting of a JSON text as it is read, before any parser builds it: a hostile body
 * of millions of `[` would otherwise be built in full, for seconds, before its depth is known.
 * A linear scan that knows only strings and brackets, fed in consecutive slices of `text`; it
 * throws `JsonTooDeepError` at the first object or array that opens past `maxDepth` (the
 * outermost is level 1), and `JsonTooManyKeysError` at the first object whose key count passes
 * `maxKeys` (listing, sorting or checking the keys of one huge object is a long step that
 * cannot be cut). What is not JSON is left to the parser.
 */
export class JsonDepthGuard {
  private readonly open: Level[] = [];
  private inString = false;
  private escaped = false;
  private scanned = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly maxKeys: number,
  ) {}

  /** Scans the text up to `end` (exclusive), from where the last call stopped. */
  scanTo(end: number): void {
    const { text, open } = this;
    let inString = this.inString;
    let escaped = this.escaped;
    for (let at = this.scanned; at < end; at++) {
      const code = text.charCodeAt(at);
      if (inString) {
        if (escaped) escaped = false;
        else if (code === BACKSLASH) escaped = true;
        else if (code === QUOTE) {
          inString = false;
          const level = open[open.length - 1];
          if (level && !level.isArray && level.keyTo < level.keyFrom) level.keyTo = at + 1;
        }
        continue;
      }
      const level = open[open.length - 1];
      if (code === QUOTE) {
        inString = true;
        if (level?.expectsKey) {
          if (++level.keys > this.maxKeys)
            throw new JsonTooManyKeysError(this.pathThrough(open.slice(0, -1)));
          level.expectsKey = false;
          level.keyFrom = at;
          level.keyTo = -1;
        }
      } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        if (open.length >= this.maxDepth) throw new JsonTooDeepError(this.pathThrough(open));
        const isArray = code === OPEN_ARRAY;
        open.push({ isArray, index: 0, keyFrom: 0, keyTo: -1, expectsKey: !isArray, keys: 0 });
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        open.pop();
      } else if (code === COMMA && level) {
        if (level.isArray) level.index++;
        else level.expectsKey = true;
      }
    }
    this.inString = inString;
    this.escaped = escaped;
    this.scanned = Math.max(this.scanned, end);
  }

  /** The steps from the outermost value down through the current child of each of `levels`. */
  private pathThrough(levels: Level[]): (number | string)[] {
    return levels.map((level) => {
      if (level.isArray) return level.index;
      const quoted = this.text.slice(level.keyFrom, level.keyTo);
      try {
        return JSON.parse(quoted) as string;
      } catch {
        return quoted.slice(1, -1);
      }
    });
  }
}
