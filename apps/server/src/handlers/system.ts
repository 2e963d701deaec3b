import type { RequestHandler } from 'express';

/** Health, readiness, the spec and its rendered reference: no key, no rate limit. */
export function systemHandlers(deps: {
  ping: () => Promise<void>;
  spec: object;
  docsHtml: string;
}) {
  return {
    getHealth: ((_req, res) => {
      res.json({ status: 'ok' });
    }) satisfies RequestHandler,
    getReadiness: (async (_req, res) => {
      try {
        await deps.ping();
        res.json({ status: 'ok' });
      } catch {
        res.status(503).json({ status: 'unavailable' });
      }
    }) satisfies RequestHandler,
    getOpenApiDocument: ((_req, res) => {
      res.json(deps.spec);
    }) satisfies RequestHandler,
    getApiReference: ((_req, res) => {
      // Redoc runs inline scripts and web workers: this page alone gets a looser policy.
      res.setHeader(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:",
      );
      res.type('html').send(deps.docsHtml);
    }) satisfies RequestHandler,
  };
}
