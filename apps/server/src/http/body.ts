import express, { type RequestHandler } from 'express';
import { ApiError, invalid } from './errors.js';

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

function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return path;
      const found = findNul(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** PostgreSQL text cannot hold U+0000: refuse it as a 400 instead of failing in the database. */
export const rejectNulCharacters: RequestHandler = (req, res, next) => {
  const pathParams = (res.locals.operation as { params?: Record<string, string> } | undefined)
    ?.params;
  const field =
    findNul(req.body, 'body') ?? findNul(req.query, 'query') ?? findNul(pathParams, 'path');
  if (field) throw invalid(field, 'must not contain the NUL character (U+0000)');
  next();
};

/** 1 MiB bodies, 10 MiB for log ingest (decisions.md §5). */
export const parseJsonBody: RequestHandler = (req, res, next) => {
  const ingest = req.method === 'POST' && req.path === '/v1/logs';
  return (ingest ? ingestParser : defaultParser)(req, res, next);
};
