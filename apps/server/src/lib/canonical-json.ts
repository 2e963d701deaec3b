import { Pacer } from './pacer.js';

/** About how many characters of canonical JSON are handed on at once. */
const PIECE_CHARS = 64 * 1024;

function* canonicalParts(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      yield* canonicalParts(value[i]);
    }
    yield ']';
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // Sorted by UTF-16 code units, as `<` compares strings.
    const keys = Object.keys(record).sort();
    yield '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      yield `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`;
      yield* canonicalParts(record[key]);
    }
    yield '}';
  } else yield JSON.stringify(value) ?? 'null';
}

/**
 * JSON with object keys sorted and no whitespace (the same value always gives the same text),
 * in consecutive pieces between which the event loop serves other requests. For values whose
 * depth is already known to be bounded (the generator recurses).
 */
export async function* canonicalJson(value: unknown): AsyncGenerator<string> {
  const pacer = new Pacer();
  let piece = '';
  for (const part of canonicalParts(value)) {
    piece += part;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
      await pacer.pace();
    }
  }
  yield piece;
}
