import type { RequestHandler } from 'express';
import { newId } from '../lib/ids.js';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Reuses a safe incoming `X-Request-Id`, or makes one; echoed on every response. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming !== undefined && SAFE.test(incoming) ? incoming : newId('req');
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
