import { describe, expect, it } from 'vitest';
import { loadSpec, readOperations } from './operations.js';

describe('readOperations', () => {
  it('counts every POST, PATCH and DELETE as a write (an Idempotency-Key stores even a search)', () => {
    const operations = readOperations(loadSpec());
    expect(operations.filter((o) => o.method !== 'GET' && !o.writes)).toEqual([]);
    expect(operations.find((o) => o.id === 'searchLogs')?.writes).toBe(true);
    expect(operations.filter((o) => o.method === 'GET' && o.writes)).toEqual([]);
    expect(operations.find((o) => o.id === 'createExport')?.writes).toBe(true);
  });
});
