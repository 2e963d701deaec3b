import { expect, it } from 'vitest';
import { createOperationMatcher, loadSpec } from '../../src/http/spec.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const spec = loadSpec();
const operations = Object.entries(spec.paths).flatMap(([template, item]) =>
  METHODS.filter(
    (method) => (item[method] as { operationId?: string } | undefined)?.operationId,
  ).map((method) => ({
    method,
    template,
    operationId: (item[method] as { operationId: string }).operationId,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    sample: template.replace(/\{[^}]+\}/g, 'sample_value'),
  })),
);

it('finds every operation of the spec from a concrete path, path parameters decoded', () => {
  const match = createOperationMatcher(spec);
  for (const op of operations) {
    expect(match(op.method.toUpperCase(), op.sample)?.operationId, op.template).toBe(
      op.operationId,
    );
  }
  expect(match('GET', '/v1/users/a%20b')?.params).toEqual({ id: 'a b' });
});

// Handlers are dispatched by our matcher and request schemas picked by express-openapi-validator's
// own lookup: they agree as long as no concrete path fits two templates under one method.
it('has no method + path that fits two operations', () => {
  for (const a of operations) {
    const others = operations.filter(
      (b) => b !== a && b.method === a.method && b.pattern.test(a.sample),
    );
    expect(
      others.map((b) => `${b.method} ${b.template}`),
      `${a.method} ${a.template}`,
    ).toEqual([]);
  }
});
