import { describe, expect, it } from 'vitest';
import { mergeHandlers } from './composition.js';

describe('mergeHandlers', () => {
  it("merges every module's handlers into one map", () => {
    const a = () => {};
    const b = () => {};
    expect(
      mergeHandlers([
        { handlers: { a }, jobs: [] },
        { handlers: { b }, jobs: [] },
      ]),
    ).toEqual({
      a,
      b,
    });
  });

  it('refuses an operation that two modules handle', () => {
    const modules = [
      { handlers: { getUser: () => {} }, jobs: [] },
      { handlers: { getUser: () => {} }, jobs: [] },
    ];
    expect(() => mergeHandlers(modules)).toThrow('getUser is handled by two modules');
  });
});
