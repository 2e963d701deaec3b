import { describe, expect, it } from 'vitest';
import { loadSpec, readOperations } from './operations.js';

describe('readOperations', () => {
  it('takes which operations write from the spec: every POST, PATCH and DELETE but those marked read-only', () => {
    const operations = readOperations(loadSpec());
    const readOnly = operations.filter((o) => o.method !== 'GET' && !o.writes).map((o) => o.id);
    expect(readOnly.sort()).toEqual([
      'searchLogs',
      'simulatePolicy',
      'simulatePolicyBatch',
      'verifyLogs',
    ]);
    expect(operations.filter((o) => o.method === 'GET' && o.writes)).toEqual([]);
    expect(operations.find((o) => o.id === 'createExport')?.writes).toBe(true);
  });
});
