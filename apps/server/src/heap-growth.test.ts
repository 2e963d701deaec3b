import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, HEAP_GROWING_PERCENT, LARGE_HEAP_LIMIT_BYTES } from './heap-growth.js';

describe('boundHeapGrowth', () => {
  const run = (execArgv: string[], heapLimit: number) => {
    const set: string[] = [];
    const applied = boundHeapGrowth({ execArgv, heapLimit, setFlags: (f) => set.push(f) });
    return { applied, set };
  };

  it('sets the growing factor on a large heap unless node was given one', () => {
    expect(run(['--enable-source-maps'], LARGE_HEAP_LIMIT_BYTES)).toEqual({
      applied: true,
      set: [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`],
    });
    expect(run(['--heap-growing-percent=0'], 4 * LARGE_HEAP_LIMIT_BYTES).set).toEqual([]);
    expect(run(['--heap_growing_percent=300'], 4 * LARGE_HEAP_LIMIT_BYTES).set).toEqual([]);
  });

  it("leaves a small heap's factor to V8, which keeps it small there", () => {
    expect(run([], LARGE_HEAP_LIMIT_BYTES - 1)).toEqual({ applied: false, set: [] });
  });
});
