import express, { type RequestHandler } from 'express';
import { ApiError } from './errors.js';

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** A request body must be JSON: anything else is a 415 before it is read. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
    throw new ApiError('unsupported_media_type', 'Request bodies must be application/json.');
  }
  next();
};

const JSON_TYPES = ['application/json', 'application/*+json'];
const ingestParser = express.json({ limit: '10mb', type: JSON_TYPES });
const defaultParser = express.json({ limit: '1mb', type: JSON_TYPES });

/** 1 MiB bodies, 10 MiB for log ingest (decisions.md §5). */
export const parseJsonBody: RequestHandler = (req, res, next) => {
  const ingest = req.method === 'POST' && req.path === '/v1/logs';
  return (ingest ? ingestParser : defaultParser)(req, res, next);
};
