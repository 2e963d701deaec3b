import { describe, expect, it } from 'vitest';
import { loadSpec, readOperations } from './operations.js';
import { SpecValidator } from './validation.js';

describe('SpecValidator', () => {
  it('compiles an operation once: every server of a process shares what was compiled', () => {
    const spec = loadSpec();
    const [first, second] = readOperations(spec);
    if (!first || !second) throw new Error('the spec has operations');
    const validator = new SpecValidator(spec);
    expect(validator.requestValidator(first)).toBe(validator.requestValidator(first));
    expect(validator.responseValidator(first)).toBe(validator.responseValidator(first));
    expect(validator.requestValidator(second)).not.toBe(validator.requestValidator(first));
    // A second reading of the spec names the same operations: they find the compiled ones.
    const again = readOperations(loadSpec()).find((o) => o.id === first.id);
    if (!again) throw new Error('the operation is read again');
    expect(validator.requestValidator(again)).toBe(validator.requestValidator(first));
  });
});
