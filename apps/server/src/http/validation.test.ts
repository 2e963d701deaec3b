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

  // The server compiles an operation's schemas on its first request: a schema Ajv cannot
  // compile must fail here, not as a 500 in production.
  it("compiles every operation's request schemas", () => {
    const spec = loadSpec();
    const validator = new SpecValidator(spec);
    for (const operation of readOperations(spec))
      expect(() => validator.requestValidator(operation), operation.id).not.toThrow();
  });
});
