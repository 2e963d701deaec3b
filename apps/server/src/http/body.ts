import express, { type RequestHandler } from 'express';
import { ApiError, type ErrorDetail } from './errors.js';

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

/** The body's top-level object or array is level 1; each nested one adds a level (decisions.md §5). */
const MAX_DEPTH = 32;
/** Keys that mean something to JavaScript objects: never data. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DETAILS = 20;

/**
 * Everything in a JSON value that no field may hold: U+0000 (PostgreSQL text cannot store it),
 * reserved keys, and nesting deeper than 32 levels. Walks with an explicit stack, so that a
 * hostile depth cannot exhaust the call stack, and stops below the depth limit.
 */
export function jsonViolations(value: unknown, root: string): ErrorDetail[] {
  const violations: ErrorDetail[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [
    { value, path: root, depth: 0 },
  ];
  while (stack.length > 0 && violations.length < MAX_DETAILS) {
    const { value, path, depth } = stack.pop() as (typeof stack)[number];
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        violations.push({ field: path, message: 'must not contain the NUL character (U+0000)' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_DEPTH) {
      violations.push({
        field: path,
        message: `must not be nested more than ${MAX_DEPTH} levels deep`,
      });
      continue;
    }
    // Pushed in reverse, so that violations are reported in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(value);
    for (const [key] of entries) {
      if (RESERVED_KEYS.has(key))
        violations.push({ field: `${path}.${key}`, message: 'is a reserved key name' });
      else if (key.includes('\u0000'))
        violations.push({
          field: path,
          message: 'must not have a key with the NUL character (U+0000)',
        });
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i] as [string, unknown];
      if (!RESERVED_KEYS.has(key))
        stack.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
    }
  }
  return violations;
}

/** Refuses NUL characters, reserved keys and deep nesting anywhere in the body, query or path, with every violation. */
export const rejectHostileJson: RequestHandler = (req, res, next) => {
  const pathParams = (res.locals.operation as { params?: Record<string, string> } | undefined)
    ?.params;
  const violations = [
    ...jsonViolations(req.body, 'body'),
    ...jsonViolations(req.query, 'query'),
    ...jsonViolations(pathParams, 'path'),
  ];
  if (violations.length > 0)
    throw new ApiError('invalid_request', 'The request is invalid.', violations);
  next();
};

/** 1 MiB bodies, 10 MiB for log ingest (decisions.md §5). */
export const parseJsonBody: RequestHandler = (req, res, next) => {
  const ingest = req.method === 'POST' && req.path === '/v1/logs';
  return (ingest ? ingestParser : defaultParser)(req, res, next);
};
