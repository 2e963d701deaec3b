import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const html = readFileSync(new URL('../dist/index.html', import.meta.url), 'utf8');
const spec = JSON.parse(
  readFileSync(new URL('../../../spec/dist/openapi.json', import.meta.url), 'utf8'),
);

test('the reference renders every operation of the bundled spec', () => {
  const operations = Object.values(spec.paths).flatMap((item) =>
    Object.entries(item).filter(([method]) => method !== 'parameters'),
  );
  assert.ok(operations.length >= 25);
  for (const [, operation] of operations) {
    assert.ok(html.includes(operation.operationId), `missing ${operation.operationId}`);
  }
});

test('the reference is self-contained (works without network access)', () => {
  assert.doesNotMatch(html, /<script[^>]+src="https?:/);
});

test('the reference shows code samples and who may call each operation', () => {
  assert.ok(html.includes('createSecadminClient'), 'no TypeScript sample');
  assert.ok(html.includes('client.policies.simulate('), 'no sample of simulatePolicy');
  assert.ok(
    html.includes('**Access:** Requires `policies:simulate` on `policies`.'),
    'the access rule is not said',
  );
});
