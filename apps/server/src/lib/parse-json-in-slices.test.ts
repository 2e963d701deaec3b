import { JSONParser } from '@streamparser/json';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonSyntaxError, parseJsonInSlices } from './parse-json-in-slices.js';

/** An ingest batch as clients send it: objects of a few short fields. */
function ingestBatch(entries: number): string {
  return JSON.stringify({
    entries: Array.from({ length: entries }, (_, i) => ({
      event: 'user.login',
      actor: { id: `user_${i}`, email: `user${i}@example.com`, type: 'user' },
      target: { id: `res_${i}`, type: 'document' },
      context: { ip: `10.0.${i >> 8}.${i & 255}`, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
      result: 'success',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      metadata: { requestNo: i, note: 'routine zephyr' },
    })),
  });
}

/** Whether `parseJsonInSlices` handed the whole text to `JSON.parse`. */
async function parsedAtOnce(text: string): Promise<boolean> {
  const parse = vi.spyOn(JSON, 'parse');
  const value = await parseJsonInSlices(text, 32, 4096);
  const atOnce = parse.mock.calls.some(([argument]) => argument === text);
  parse.mockRestore();
  expect(value).toEqual(JSON.parse(text));
  return atOnce;
}

afterEach(() => vi.restoreAllMocks());

describe('parseJsonInSlices', () => {
  it('parses an ingest batch of 1,000 entries with JSON.parse, not the incremental parser', async () => {
    const text = ingestBatch(1000);
    expect(text.length).toBeGreaterThan(256 * 1024);
    expect(await parsedAtOnce(text)).toBe(true);
  });

  it('takes the incremental parser for dense text, whatever its size in characters', async () => {
    // Half a mebibyte of empty objects: JSON.parse would build 170,000 objects in one go.
    const dense = `[${Array(170_000).fill('{}').join(',')}]`;
    expect(await parsedAtOnce(dense)).toBe(false);
    expect(await parsedAtOnce(ingestBatch(4000))).toBe(false);
    // Few values, but each object of names never seen before: a new shape for each.
    const names = JSON.stringify(
      Array.from({ length: 40 }, (_, o) =>
        Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`k${o * 60 + k}`, 0])),
      ),
    );
    expect(await parsedAtOnce(names)).toBe(false);
  });

  it('gives the same value and errors on both paths', async () => {
    const small = '{"__proto__": {"x": 1}, "a": [1, 2.5e3, "\\u00e9", null, true]}';
    const value = (await parseJsonInSlices(small, 32, 4096)) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    const dense = `[${Array(40_000).fill('{}').join(',')},]`;
    await expect(parseJsonInSlices(dense, 32, 4096)).rejects.toBeInstanceOf(JsonSyntaxError);
    await expect(parseJsonInSlices('{"a": tru}', 32, 4096)).rejects.toMatchObject({
      at: { line: 1 },
    });
  });

  it('locates a syntax error in a mebibyte text in slices, not in one synchronous pass', async () => {
    // JSON.parse names no position for an unexpected token: a mebibyte of escapes with one at
    // its end (2 values) was handed whole to the incremental parser, 200-300 ms in one go.
    const write = vi.spyOn(JSONParser.prototype, 'write');
    const text = `["${'\\u00e9'.repeat(174_760)}",x]`;
    expect(text.length).toBeLessThanOrEqual(1024 * 1024);
    await expect(parseJsonInSlices(text, 32, 4096)).rejects.toMatchObject({
      at: { offset: text.length - 2, line: 1, column: text.length - 1 },
    });
    const longest = Math.max(0, ...write.mock.calls.map(([chunk]) => String(chunk).length));
    expect(longest).toBeLessThanOrEqual(8 * 1024);
  });
});
