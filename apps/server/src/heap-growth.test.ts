import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from './heap-growth.js';

describe('boundHeapGrowth', () => {
  it('bounds the heap growth unless node was given a growing factor', () => {
    expect(boundHeapGrowth(['--enable-source-maps'])).toBe(true);
    expect(boundHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(boundHeapGrowth(['--heap_growing_percent=300'])).toBe(false);
  });
});
