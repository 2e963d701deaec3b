import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { createStore } from '../../../storage/store.js';
import { parseSearchQuery } from './query.js';
import { SearchRepository, TOTAL_HITS_BOUND } from './repository.js';

const BATCH = 1000;
// Two more than the bound: a count that stopped at 10,001 would differ from the exact one.
const MATCHING = 10_002;
const MARKED = 2;

describe('bounded search totals', () => {
  let server: TestServer;
  const tag = `bulk${Date.now()}`;
  beforeAll(async () => {
    server = await startTestServer();
    for (let start = 0; start < MATCHING; start += BATCH) {
      const size = Math.min(BATCH, MATCHING - start);
      const entries = Array.from({ length: size }, (_, i) => ({
        event: 'bulk.entry',
        actor: { type: 'system' },
        result: 'success' as const,
        // Marked entries let a query match exactly 10,000.
        metadata: start + i < MARKED ? { tag, mark: 'odd' } : { tag },
      }));
      const { response } = await server.client.POST('/v1/logs', { body: { entries } });
      if (response.status !== 201) throw new Error(`ingest failed: ${response.status}`);
    }
  }, 120_000);
  afterAll(() => server?.stop());

  const totals = async (body: { query: string; exactTotal?: boolean }) => {
    const { data } = await server.client.POST('/v1/logs/search', { body: { ...body, limit: 1 } });
    if (!data) throw new Error('no data');
    return { totalHits: data.meta.totalHits, relation: data.meta.totalHitsRelation };
  };

  it('stops counting above 10,000 matches: 10000 with "gte"', async () => {
    expect(await totals({ query: tag })).toEqual({ totalHits: 10_000, relation: 'gte' });
  });

  it('stops the count one past the bound instead of counting every match', async () => {
    const search = new SearchRepository(createStore(server.db).connection);
    const query = parseSearchQuery(tag);
    expect(await search.count(query, {}, false)).toBe(TOTAL_HITS_BOUND + 1);
    expect(await search.count(query, {}, true)).toBe(MATCHING);
  });

  it('counts every match with exactTotal', async () => {
    expect(await totals({ query: tag, exactTotal: true })).toEqual({
      totalHits: MATCHING,
      relation: 'eq',
    });
  });

  it('is exact with "eq" up to and including 10,000', async () => {
    expect(await totals({ query: `${tag} -odd` })).toEqual({ totalHits: 10_000, relation: 'eq' });
    expect(await totals({ query: `${tag} odd` })).toEqual({ totalHits: MARKED, relation: 'eq' });
  });
});
