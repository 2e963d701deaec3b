import { describe, expect, it, vi } from 'vitest';
import { type DispatchDeps, dispatcher } from './dispatch.js';
import { loadSpec, readOperations } from './operations.js';

describe('dispatcher', () => {
  // Compiling every operation's schemas was a large part of the time to /readyz.
  it('compiles no request validator before an operation is called', () => {
    const requestValidator = vi.fn();
    const responseValidator = vi.fn();
    dispatcher({
      operations: readOperations(loadSpec()),
      validator: { requestValidator, responseValidator },
      handlers: {},
      validateResponses: true,
    } as unknown as DispatchDeps);
    expect(requestValidator).not.toHaveBeenCalled();
  });
});
