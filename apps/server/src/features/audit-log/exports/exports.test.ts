import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  localDownload,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { waitForExport } from '../../../../test/helpers/wait.js';
import { newId } from '../../../lib/ids.js';
import { createStore } from '../../../storage/store.js';
import { EntriesRepository } from '../entries/repository.js';
import type { NewLogRow } from '../entries/sql.js';
import { csvHeader, csvLine } from './formats.js';

async function exportOf(server: TestServer, body: Record<string, unknown>) {
  const { data } = await server.client.POST('/v1/logs/export', { body: body as never });
  return waitForExport(server.client, data?.data.exportId as string);
}

const row = (timestamp: string, fields: Partial<NewLogRow>): NewLogRow => ({
  id: newId('log'),
  timestamp: new Date(timestamp),
  event: 'csv.case',
  actorType: 'user',
  result: 'success',
  origin: 'api',
  ingestedBy: 'key_test',
  receivedAt: new Date(timestamp),
  metadata: {},
  ...fields,
});

/** Values where PostgreSQL's text and JavaScript's could part: each must come out as csvLine writes it. */
const CASES: NewLogRow[] = [
  row('2019-05-05T00:00:01.000Z', {
    actorId: 'u1',
    actorEmail: 'a@example.com',
    targetId: 't1',
    targetType: 'doc',
    ip: '10.0.0.1',
    userAgent: 'curl/8.5.0',
    city: 'Berlin',
    country: 'DE',
    region: 'BE',
    lat: 52.52,
    lng: 13.405,
    traceId: 'trace-1',
    metadata: { note: 'routine', n: 42 },
  }),
  row('2019-05-05T00:00:02.120Z', {
    userAgent: 'Mozilla/5.0 (KHTML, like Gecko) Chrome/140.0',
    city: 'Say "hi"',
    region: 'two\nlines',
    traceId: 'carriage\rreturn',
  }),
  row('2019-05-05T00:00:03.000Z', {
    actorId: '=1+1',
    actorEmail: '+x@example.com',
    targetId: '-5',
    targetType: '@t',
    ip: '\tx',
    userAgent: '\rua',
    city: '',
    country: '',
  }),
  row('2019-05-05T00:00:04.000Z', { lat: -33.5, lng: -0 }),
  row('2019-05-05T00:00:05.000Z', { lat: 1e-7, lng: 0.00001 }),
  row('2019-05-05T00:00:06.000Z', { lat: 0.0001, lng: 123456789012345.6 }),
  row('2019-05-05T00:00:07.000Z', { lat: 1e15, lng: 1e21 }),
  row('2019-05-05T00:00:08.000Z', { metadata: { k: 'v, "quoted"' } }),
  row('2019-05-05T00:00:09.000Z', {
    metadata: { a: ': x', b: ', y', c: [1, 2, { d: null }], e: true, f: 'a": "b' },
  }),
  row('2019-05-05T00:00:10.000Z', { metadata: { n: 1e21, tiny: 1e-7, small: 0.000001 } }),
  row('2019-05-05T00:00:11.000Z', { metadata: { b: 1, '10': 'x', '2': 'y' } }),
  row('2019-05-05T00:00:12.000Z', {
    metadata: { s: 'back\\slash "q"', u: 'é\u2028\u001f', big: 12345678901234567000 },
  }),
  row('2019-05-05T00:00:13.000Z', { metadata: { x: { y: { z: 'a, b: c' } }, '=': '=cmd' } }),
  row('2019-05-05T00:00:14.000Z', { origin: 'service', ingestedBy: null, receivedAt: null }),
  row('1000-06-01T00:00:00.000Z', { event: 'csv.old' }),
  row('9999-01-01T00:00:00.000Z', { event: 'csv.far' }),
];

describe('exports', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    const entries = new EntriesRepository(createStore(server.db).connection);
    await entries.insert(CASES);
    // Enough plain rows for several batches, so that batches follow each other exactly.
    await entries.insert(
      Array.from({ length: 4500 }, (_, i) =>
        row(new Date(Date.parse('2019-05-06T00:00:00Z') + (i % 1500) * 1000).toISOString(), {
          actorId: `bulk-${i}`,
          metadata: { i },
        }),
      ),
    );
  });
  afterAll(() => server?.stop());

  it.each([true, false])(
    'writes each CSV row exactly as csvLine does (includeMetadata %s)',
    async (includeMetadata) => {
      const range = { from: '0001-01-01T00:00:00Z', to: '9999-12-31T00:00:00Z' };
      const done = await exportOf(server, { ...range, format: 'csv', includeMetadata });
      expect(done.status).toBe('completed');
      const file = await fetch(localDownload(server, done.downloadUrl as string));
      const text = await file.text();
      const all = await new EntriesRepository(createStore(server.db).connection).list(
        { from: new Date(range.from), to: new Date(range.to) },
        undefined,
        10_000,
      );
      // The export's own logs.export.created entry is in its range but never in its file.
      const own = all.filter(
        (e) => e.event === 'logs.export.created' && e.targetId === done.exportId,
      );
      expect(own).toHaveLength(1);
      const entries = all.filter((e) => !own.includes(e));
      const expected = [
        csvHeader(includeMetadata),
        ...entries.map((e) => csvLine(e, includeMetadata)),
      ];
      expect(done.totalRecords).toBe(entries.length);
      const lines = text.split(/(?<=\r\n)(?=log_|$)/);
      expect(lines.length).toBe(expected.length);
      for (const [i, line] of expected.entries()) expect(lines[i], entries[i - 1]?.id).toBe(line);
      expect(Buffer.byteLength(text)).toBe(done.fileSizeBytes);
    },
  );

  it('fails an export that would take stored exports past SECADMIN_EXPORTS_MAX_BYTES, and keeps none of it', async () => {
    const small = await startTestServer({ exportsMaxBytes: 1_500_000 });
    try {
      await new EntriesRepository(createStore(small.db).connection).insert(
        Array.from({ length: 8000 }, (_, i) =>
          row(new Date(Date.parse('2019-07-01T00:00:00Z') + i * 1000).toISOString(), {
            userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
            metadata: { i, note: 'quota' },
          }),
        ),
      );
      const fits = await exportOf(small, {
        from: '2019-07-01T00:00:00Z',
        to: '2019-07-01T00:05:00Z',
        format: 'csv',
      });
      expect(fits).toMatchObject({ status: 'completed', totalRecords: 300 });
      const tooBig = await exportOf(small, {
        from: '2019-07-01T00:00:00Z',
        to: '2019-07-02T00:00:00Z',
        format: 'json',
      });
      expect(tooBig.status).toBe('failed');
      expect(tooBig.error).toMatch(/limit of 1500000 bytes/);
      expect(tooBig).not.toHaveProperty('downloadUrl');
      // Only the export that fits is stored.
      const chunks = await small.db.query<{ export_id: string }>(
        'SELECT DISTINCT export_id FROM export_chunks',
      );
      expect(chunks.map((c) => c.export_id)).toEqual([fits.exportId]);
      expect((await fetch(localDownload(small, fits.downloadUrl as string))).status).toBe(200);
    } finally {
      await small.stop();
    }
  });
});
