import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { CONTENT_TYPES, type ExportFormat } from '../exports/formats.js';
import type { Handler } from '../http/context.js';
import { created, ok, sendPage } from '../http/respond.js';
import { isoMillis } from '../lib/time.js';
import { logDetail, logListItem } from '../representations.js';
import type { ExportsService } from '../services/exports-service.js';
import type { LogsService } from '../services/logs-service.js';
import type { SearchService } from '../services/search-service.js';

export function logHandlers(logs: LogsService, search: SearchService, exports: ExportsService) {
  const ingestLogs: Handler<'ingestLogs'> = async ({ body, res }) => {
    const acks = await logs.ingest(body.entries);
    created(
      res,
      acks.map((ack) => ({ id: ack.id, timestamp: isoMillis(ack.timestamp) })),
    );
  };
  const listLogs: Handler<'listLogs'> = async ({ query, res }) => {
    const page = await logs.list(query);
    sendPage(res, { items: page.items.map(logListItem), nextCursor: page.nextCursor });
  };
  const getLog: Handler<'getLog'> = async ({ params, res }) => {
    ok(res, logDetail(await logs.get(params.id)));
  };
  const searchLogs: Handler<'searchLogs'> = async ({ body, res }) => {
    const result = await search.search(body);
    const data = result.hits.map(({ row, highlights }) => {
      const { id, timestamp, event, actor, result: outcome } = logListItem(row);
      return { id, timestamp, event, actor, result: outcome, highlights };
    });
    sendPage(
      res,
      { items: data, nextCursor: result.nextCursor },
      {
        totalHits: result.totalHits,
        searchTimeMs: result.searchTimeMs,
      },
    );
  };
  const createExport: Handler<'createExport'> = async ({ actor, body, res }) => {
    const row = await exports.create(actor, body);
    const { exportId, status, format, estimatedRecords, createdAt } = exports.view(row);
    created(res, { exportId, status, format, estimatedRecords, createdAt });
  };
  const getExport: Handler<'getExport'> = async ({ params, res }) => {
    ok(res, exports.view(await exports.get(params.exportId)));
  };
  const downloadExport: Handler<'downloadExport'> = async ({ params, query, res }) => {
    const { path, row, size } = await exports.resolveDownload(params.file, query.token ?? '');
    res.setHeader('Content-Type', CONTENT_TYPES[row.format as ExportFormat]);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', `attachment; filename="${row.id}.${row.format}"`);
    res.setHeader('Cache-Control', 'no-store');
    await pipeline(createReadStream(path), res);
  };
  return { ingestLogs, listLogs, getLog, searchLogs, createExport, getExport, downloadExport };
}
