import { JSONParser } from '@streamparser/json';
import { vi } from 'vitest';
import { JsonDepthGuard } from '../../src/lib/json-depth-guard.js';

/** How much of the request bodies the server read while `work` ran. */
export interface BodyParsing {
  /** The farthest character the nesting guard was asked to scan to, in any body. */
  scannedTo: number;
  /** The characters handed to the incremental parser, all bodies together. */
  parsedChars: number;
  /** The largest text handed to `JSON.parse` at once. */
  parsedAtOnce: number;
}

/** Runs `work` (requests to a server in this process) and tells how far their bodies were read. */
export async function bodyParsing(work: () => Promise<void>): Promise<BodyParsing> {
  const seen: BodyParsing = { scannedTo: 0, parsedChars: 0, parsedAtOnce: 0 };
  const scanTo = JsonDepthGuard.prototype.scanTo;
  const scan = vi.spyOn(JsonDepthGuard.prototype, 'scanTo').mockImplementation(function (
    this: JsonDepthGuard,
    to: number,
  ) {
    seen.scannedTo = Math.max(seen.scannedTo, to);
    scanTo.call(this, to);
  });
  const write = vi.spyOn(JSONParser.prototype, 'write');
  const parse = vi.spyOn(JSON, 'parse');
  try {
    await work();
  } finally {
    for (const [chunk] of write.mock.calls) seen.parsedChars += String(chunk).length;
    for (const [text] of parse.mock.calls)
      seen.parsedAtOnce = Math.max(seen.parsedAtOnce, text.length);
    scan.mockRestore();
    write.mockRestore();
    parse.mockRestore();
  }
  return seen;
}
