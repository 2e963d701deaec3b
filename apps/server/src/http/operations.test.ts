import { describe, expect, it } from 'vitest';
import { loadSpec, readOperations } from './operations.js';

describe('readOperations', () => {
  it('counts every POST, PATCH and DELETE as a write but the POSTs that only read (docs/idempotency.md, docs/operations.md)', () => {
    const operations = readOperations(loadSpec());
    expect(
      operations
        .filter((o) => o.method !== 'GET' && !o.writes)
        .map((o) => o.id)
        .sort(),
    ).toEqual([
      'checkSearchIndex',
      'evaluateAccess',
      'evaluateAccessBatch',
      'getLogStats',
      'searchActions',
      'searchLogs',
      'searchResources',
      'searchSubjects',
      'simulatePolicy',
      'simulatePolicyBatch',
      'testLogStream',
      'verifyLogs',
    ]);
    expect(operations.filter((o) => o.method === 'GET' && o.writes)).toEqual([]);
    expect(operations.find((o) => o.id === 'createExport')?.writes).toBe(true);
  });
});
