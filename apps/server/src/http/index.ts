/**
 * What code answering a request may use of http/: the handler's type, the envelope's writers,
 * conditional requests, static files, and the errors a dispatch step sends itself. Features
 * import http/ through this file only; http/ imports no feature.
 */
export { ifMatch, notModified } from './conditional.js';
export type { Handler } from './context.js';
export { ApiError, sendError } from './errors.js';
export { preparedFirst } from './prepared-first.js';
export { created, noContent, ok, sendJson, sendPage, sendScim } from './respond.js';
export { type StaticFile, sendStaticFile } from './static-file.js';
