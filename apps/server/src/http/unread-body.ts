import type { Request, Response } from 'express';

/** Whether the request carries a body at all (a length, or a chunked transfer). */
export const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Before an answer to a request whose body was never read (a 401, 403, 413, 429 or 503 comes
 * before the body; an operation that takes none never reads it): the connection closes once the
 * answer is sent, so a client that trickles a body it may not send cannot hold a socket open for
 * as long as the server's request timeout.
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!hasBody(req) || req.complete) return;
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroy());
}
