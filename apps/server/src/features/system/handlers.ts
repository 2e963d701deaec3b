import type { Handler } from '../../http/context.js';
import type { RateLimitStoreHealth } from '../../rate-limit/store.js';

/** Health, readiness, the spec and its rendered reference: no key, no rate limit. */
export function systemHandlers(deps: {
  ping: () => Promise<void>;
  rateLimitStoreHealth: () => Promise<RateLimitStoreHealth>;
  spec: object;
  docsHtml: string;
}) {
  const getHealth: Handler<'getHealth'> = ({ res }) => {
    res.json({ status: 'ok' });
  };
  const getReadiness: Handler<'getReadiness'> = async ({ res }) => {
    const [database, rateLimitStore] = await Promise.all([
      deps.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      ),
      deps.rateLimitStoreHealth(),
    ]);
    const checks = { database, rateLimitStore };
    if (database === 'unavailable') {
      res.setHeader('Retry-After', '1');
      res.status(503).json({ status: 'unavailable', checks });
    } else {
      res.json({ status: rateLimitStore === 'degraded' ? 'degraded' : 'ok', checks });
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
