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
 * Up to this size `JSON.parse` takes the whole text at once: a few milliseconds, and several
 * times less CPU than the incremental parser (an ingest batch of 1,000 small entries).
 */
const AT_ONCE_CHARS = 256 * 1024;

/** What `JSON.parse` would throw: the text is not one JSON value. */
export class JsonSyntaxError extends SyntaxError {}

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
  const depth = new JsonDepthGuard(text, maxDepth, maxKeys);
  if (text.length <= AT_ONCE_CHARS) {
    depth.scanTo(text.length);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new JsonSyntaxError((error as Error).message);
    }
  }
  const parser = new JSONParser({ paths: ['$'], keepStack: false });
  let result: { value: unknown } | undefined;
  let failure: Error | undefined;
  parser.onValue = ({ value }) => {
    result = { value };
  };
  parser.onError = (error) => {
    failure ??= error;
  };
  const pacer = new Pacer();
  try {
    for (let at = 0; at < text.length && !failure; at += SLICE_CHARS) {
      depth.scanTo(at + SLICE_CHARS);
      parser.write(text.slice(at, at + SLICE_CHARS));
      await pacer.pace();
    }
    if (!failure && !parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof JsonTooDeepError || error instanceof JsonTooManyKeysError) throw error;
    failure ??= error as Error;
  }
  if (failure || !result)
    throw new JsonSyntaxError(failure?.message ?? 'Unexpected end of JSON input');
  return result.value;
}
