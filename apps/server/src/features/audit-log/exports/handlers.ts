import { pipeline } from 'node:stream/promises';
import { created, type Handler, ok } from '../../../http/index.js';
import { CONTENT_TYPES, type ExportFormat } from './formats.js';
import type { ExportsService } from './service.js';

export function exportHandlers(exports: ExportsService) {
  const createExport: Handler<'createExport'> = async ({ actor, body, res }) => {
    const row = await exports.create(actor, body);
    const { exportId, status, format, estimatedRecords, createdAt } = exports.view(row);
    created(res, { exportId, status, format, estimatedRecords, createdAt });
  };
  const getExport: Handler<'getExport'> = async ({ params, res }) => {
    ok(res, exports.view(await exports.get(params.exportId)));
  };
  const downloadExport: Handler<'downloadExport'> = async ({ params, query, res }) => {
    const { content, row, size } = await exports.resolveDownload(params.file, query.token ?? '');
    res.setHeader('Content-Type', CONTENT_TYPES[row.format as ExportFormat]);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', `attachment; filename="${row.id}.${row.format}"`);
    res.setHeader('Cache-Control', 'no-store');
    await pipeline(content, res);
  };
  return { createExport, getExport, downloadExport };
}
