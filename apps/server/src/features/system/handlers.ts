import type { Handler } from '../../http/context.js';

/** Health, readiness, the spec and its rendered reference: no key, no rate limit. */
export function systemHandlers(deps: {
  ping: () => Promise<void>;
  spec: object;
  docsHtml: string;
}) {
  const getHealth: Handler<'getHealth'> = ({ res }) => {
    res.json({ status: 'ok' });
  };
  const getReadiness: Handler<'getReadiness'> = async ({ res }) => {
    try {
      await deps.ping();
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  };
  const getOpenApiDocument: Handler<'getOpenApiDocument'> = ({ res }) => {
    res.json(deps.spec);
  };
  const getApiReference: Handler<'getApiReference'> = ({ res }) => {
    // Redoc runs inline scripts and web workers: this page alone gets a looser policy.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:",
    );
    res.type('html').send(deps.docsHtml);
  };
  return { getHealth, getReadiness, getOpenApiDocument, getApiReference };
}
