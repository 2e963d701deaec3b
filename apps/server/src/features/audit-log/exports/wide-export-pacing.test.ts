import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pacedAt, pacedWork } from '../../../../test/helpers/paced-work.js';
import { startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { waitForExport } from '../../../../test/helpers/wait.js';
import { newId } from '../../../lib/ids.js';
import { createStore } from '../../../storage/store.js';
import { EntriesRepository } from '../entries/repository.js';

/**
 * Entries with metadata of many small keys: formatted at once, 400 of them hold the loop for
 * about half a second (a few milliseconds each), five times the bound.
 */
const ENTRIES = 400;
const KEYS = 850;
const FROM = '2019-08-01T00:00:00Z';

const wideMetadata = (i: number) =>
  Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`key_${k}`, `v${i}`]));

/**
 * Issue 20: the export worker formatted a whole batch of entries at once, seconds for entries
 * with wide metadata, while the server's other requests waited. It now paces before each
 * entry it writes, and the event loop turns at each pace. The export's rate is the bench's.
 */
describe('an export of entries with wide metadata', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const entries = new EntriesRepository(createStore(server.db).connection);
    for (let at = 0; at < ENTRIES; at += 200)
      await entries.insert(
        Array.from({ length: 200 }, (_, j) => {
          const timestamp = new Date(Date.parse(FROM) + (at + j) * 1000);
          return {
            id: newId('log'),
            timestamp,
            event: 'wide.metadata',
            actorType: 'user',
            result: 'success',
            origin: 'api',
            ingestedBy: 'key_test',
            receivedAt: timestamp,
            metadata: wideMetadata(at + j),
          };
        }),
      );
  }, 180_000);
  afterAll(() => server?.stop());

  const exportAll = async (format: 'csv' | 'json') => {
    const { data } = await server.client.POST('/v1/logs/export', {
      body: { from: FROM, to: '2019-08-02T00:00:00Z', format, includeMetadata: true },
    });
    return waitForExport(server.client, data?.data.exportId as string, 120_000);
  };

  it.each(['csv', 'json'] as const)(
    'writes a %s file an entry at a time, the event loop turning between them',
    async (format) => {
      let totalRecords: number | undefined;
      const paced = await pacedWork(async () => {
        const done = await exportAll(format);
        expect(done.status).toBe('completed');
        totalRecords = done.totalRecords;
      });
      expect(totalRecords).toBe(ENTRIES);
      const writing = pacedAt(paced, 'features/audit-log/exports/worker.ts');
      expect(writing.reduce((sum, batch) => sum + batch.paces, 0)).toBeGreaterThanOrEqual(ENTRIES);
      for (const computation of paced)
        expect(computation.turns, computation.site).toBe(computation.paces - 1);
    },
  );
});
