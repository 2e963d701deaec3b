import { JSONParser } from '@streamparser/json';
import { JsonDepthGuard, JsonTooDeepError, JsonTooManyKeysError } from './json-depth-guard.js';
import { Pacer } from './pacer.js';

/**
 * Characters handed to the parser at once; the pacer yields between them every few
 * milliseconds. Dense text (objects of many short keys and numbers) costs the incremental
 * parser and its garbage far more per character: a 64 KiB slice of it held the loop many times
 * longer than the pacer's slice on a loaded machine.
 */
const SLICE_CHARS = 8 * 1024;
/**
 * `JSON.parse` takes a text of up to this size holding up to `AT_ONCE_VALUES` values and
 * `AT_ONCE_KEY_NAMES` distinct key names at once: several times less CPU than the incremental
 * parser (an ingest batch of 1,000 small entries is 400 KB, 22,000 values and a few dozen
 * names: a few milliseconds). Its time follows what it builds far more than the characters:
 * a mebibyte of `{},` is 350,000 objects, and objects of names never seen before each make a
 * new shape; either takes hundreds of milliseconds.
 */
const AT_ONCE_CHARS = 1024 * 1024;
const AT_ONCE_VALUES = 32 * 1024;
const AT_ONCE_KEY_NAMES = 1024;
/** Characters the nesting guard scans between the pacer's yields, before that choice. */
const SCAN_SLICE_CHARS = 64 * 1024;

/** Where a text stops being JSON: a 0-based character offset, line and column from 1. */
export interface JsonBreak {
  offset: number;
  line: number;
  column: number;
}

/** What `JSON.parse` would throw: the text is not one JSON value (`at`, where known). */
export class JsonSyntaxError extends SyntaxError {
  constructor(readonly at: JsonBreak | undefined) {
    super(at ? `Not JSON at line ${at.line}, column ${at.column}` : 'Not JSON');
  }
}

function jsonBreak(text: string, offset: number): JsonBreak {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/**
 * An incremental parser that remembers where it failed, as a character offset: its tokenizer
 * names a byte position, its token parser fails on the last token read, and a text that ends
 * too soon fails at its end.
 */
class LocatingParser {
  readonly parser = new JSONParser({ paths: ['$'], keepStack: false });
  result: { value: unknown } | undefined;
  failed = false;
  private failureBytes: number | undefined;
  private lastTokenBytes = 0;

  constructor() {
    this.parser.onValue = ({ value }) => {
      this.result = { value };
    };
    this.parser.onToken = ({ offset }) => {
      this.lastTokenBytes = offset;
    };
    this.parser.onError = (error) => this.fail(error);
  }

  fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    const named = /absolute position "(\d+)"/.exec(error.message)?.[1];
    if (named !== undefined) this.failureBytes = Number(named);
    else if (!/ended in mid-parsing/.test(error.message)) this.failureBytes = this.lastTokenBytes;
  }

  /** Where `text` broke; without a position, at its end. */
  error(text: string): JsonSyntaxError {
    const bytes = this.failureBytes;
    const offset =
      bytes === undefined
        ? text.length
        : Buffer.from(text, 'utf8').subarray(0, bytes).toString('utf8').length;
    return new JsonSyntaxError(jsonBreak(text, offset));
  }
}

/**
 * Where `text`, which `JSON.parse` refused with `message`, breaks, if the message tells. Node
 * 20's `JSON.parse` names no position for an unexpected token: the incremental parser then
 * finds it, in paced slices like any other text (a mebibyte at once is hundreds of ms).
 */
function locate(text: string, message: string): JsonSyntaxError | undefined {
  const named = /at position (\d+)/.exec(message)?.[1];
  if (named !== undefined) return new JsonSyntaxError(jsonBreak(text, Number(named)));
  if (/end of JSON input/i.test(message)) return new JsonSyntaxError(jsonBreak(text, text.length));
  return undefined;
}

/**
 * `JSON.parse(text)`, in slices between which the event loop serves other requests: a body of
 * megabytes is seconds of one uninterrupted parse otherwise. An incremental parser
 * (@streamparser/json: maintained, no dependencies, and it keeps a `"__proto__"` key as an own
 * property as `JSON.parse` does) takes the text a slice at a time; the result is the same value.
 * Each slice's nesting is checked before the parser sees it: past `maxDepth` levels, a
 * `JsonTooDeepError` is thrown and nothing deeper is built; past `maxKeys` keys in one object,
 * a `JsonTooManyKeysError`.
 */
export async function parseJsonInSlices(
  text: string,
  maxDepth: number,
  maxKeys: number,
): Promise<unknown> {
  const atOnce = text.length <= AT_ONCE_CHARS;
  const depth = new JsonDepthGuard(text, maxDepth, maxKeys, atOnce ? AT_ONCE_KEY_NAMES : 0);
  const pacer = new Pacer();
  let refused = false;
  if (atOnce) {
    for (let at = 0; at < text.length; at += SCAN_SLICE_CHARS) {
      depth.scanTo(at + SCAN_SLICE_CHARS);
      await pacer.pace();
    }
    if (depth.values <= AT_ONCE_VALUES && depth.keyNames <= AT_ONCE_KEY_NAMES)
      try {
        return JSON.parse(text);
      } catch (error) {
        const located = locate(text, (error as Error).message);
        if (located) throw located;
        refused = true;
      }
  }
  const locating = new LocatingParser();
  try {
    for (let at = 0; at < text.length && !locating.failed; at += SLICE_CHARS) {
      depth.scanTo(at + SLICE_CHARS);
      locating.parser.write(text.slice(at, at + SLICE_CHARS));
      await pacer.pace();
    }
    if (!locating.failed && !locating.parser.isEnded) locating.parser.end();
  } catch (error) {
    if (error instanceof JsonTooDeepError || error instanceof JsonTooManyKeysError) throw error;
    locating.fail(error as Error);
  }
  if (locating.failed || !locating.result) throw locating.error(text);
  if (refused) throw new JsonSyntaxError(undefined);
  return locating.result.value;
}
