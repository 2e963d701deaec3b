import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { RequestHandler } from 'express';
import { CONTENT_TYPES, type ExportFormat } from '../exports/formats.js';
import { authOf, operationOf } from '../http/auth.js';
import { created, ok, sendJson, sendPage } from '../http/respond.js';
import { isoMillis } from '../lib/time.js';
import { logDetail, logListItem } from '../representations.js';
import type { ExportsService } from '../services/exports-service.js';
import type { LogQuery, LogsService } from '../services/logs-service.js';
import type { SearchService } from '../services/search-service.js';
import type { Body } from './users.js';

export function logHandlers(logs: LogsService, search: SearchService, exports: ExportsService) {
  return {
    ingestLogs: (async (req, res) => {
      const acks = await logs.ingest((req.body as Body<'ingestLogs'>).entries);
      created(
        res,
        acks.map((ack) => ({ id: ack.id, timestamp: isoMillis(ack.timestamp) })),
      );
    }) satisfies RequestHandler,
    listLogs: (async (req, res) => {
      const page = await logs.list(req.query as unknown as LogQuery);
      sendPage(res, { items: page.items.map(logListItem), nextCursor: page.nextCursor });
    }) satisfies RequestHandler,
    getLog: (async (_req, res) => {
      ok(res, logDetail(await logs.get(operationOf(res).params.id as string)));
    }) satisfies RequestHandler,
    searchLogs: (async (req, res) => {
      const result = await search.search(req.body as Body<'searchLogs'>);
      const data = result.hits.map(({ row, highlights }) => {
        const { id, timestamp, event, actor, result: outcome } = logListItem(row);
        return { id, timestamp, event, actor, result: outcome, highlights };
      });
      const pagination =
        result.nextCursor === undefined
          ? { hasMore: false }
          : { hasMore: true, nextCursor: result.nextCursor };
      sendJson(res, 200, {
        data,
        pagination,
        meta: { totalHits: result.totalHits, searchTimeMs: result.searchTimeMs },
      });
    }) satisfies RequestHandler,
    createExport: (async (req, res) => {
      const row = await exports.create(authOf(res).actor, req.body as Body<'createExport'>);
      const { exportId, status, format, estimatedRecords, createdAt } = exports.view(row);
      created(res, { exportId, status, format, estimatedRecords, createdAt });
    }) satisfies RequestHandler,
    getExport: (async (_req, res) => {
      ok(res, exports.view(await exports.get(operationOf(res).params.exportId as string)));
    }) satisfies RequestHandler,
    downloadExport: (async (req, res) => {
      const file = (req.params as { file?: string }).file ?? '';
      const { path, row, size } = await exports.resolveDownload(
        file,
        String(req.query.token ?? ''),
      );
      res.setHeader('Content-Type', CONTENT_TYPES[row.format as ExportFormat]);
      res.setHeader('Content-Length', String(size));
      res.setHeader('Content-Disposition', `attachment; filename="${row.id}.${row.format}"`);
      res.setHeader('Cache-Control', 'no-store');
      await pipeline(createReadStream(path), res);
    }) satisfies RequestHandler,
  };
}
