import { createHash } from 'node:crypto';
import { type Handler, type StaticFile, sendStaticFile } from '../../http/index.js';

/**
 * The text of each inline script of a page as built (lowercase tags; a script with `src` has
 * none), as a browser's parser cuts it: from its start tag to the first `</script`.
 */
function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  for (let at = html.indexOf('<script'); at >= 0; at = html.indexOf('<script', at)) {
    const open = html.indexOf('>', at);
    const close = html.indexOf('</script', open);
    if (open < 0 || close < 0) break;
    if (!/\ssrc\s*=/i.test(html.slice(at, open))) scripts.push(html.slice(open + 1, close));
    at = close;
  }
  return scripts;
}

/**
 * The reference's own policy: Redoc runs inline scripts and web workers. `/docs` shares the
 * console's origin, so only the page's own inline scripts run: each is allowed by its SHA-256,
 * taken from the page as built. Everything it shows comes from the page itself (the build fails
 * on a remote resource) or this origin (the icon).
 */
function referenceCsp(reference: StaticFile): string {
  const page = reference.representations.find(({ encoding }) => encoding === 'identity');
  const html = page?.body.toString('utf8') ?? '';
  const hashes = inlineScripts(html).map(
    (script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`,
  );
  return `default-src 'self'; script-src 'self' ${hashes.join(' ')}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:`;
}

/** Health, readiness, the spec and its rendered reference: no key, no rate limit. */
export function systemHandlers(deps: {
  ping: () => Promise<void>;
  /** Absent without a read replica. */
  readReplicaHealth?: () => Promise<'ok' | 'unavailable'>;
  /** `memory` when no shared store is configured. */
  rateLimitStoreHealth: () => Promise<'ok' | 'degraded' | 'memory'>;
  /** True while free disk space is below `SECADMIN_MIN_FREE_DISK_MB`. */
  diskLow: () => boolean;
  /** The audit log's analytics store: never what makes the service unready by itself. */
  analyticsHealth: () => Promise<'ok' | 'lagging' | 'rebuilding'>;
  spec: StaticFile;
  reference: StaticFile;
  favicon: StaticFile;
}) {
  const getHealth: Handler<'getHealth'> = ({ res }) => {
    res.json({ status: 'ok' });
  };
  const getReadiness: Handler<'getReadiness'> = async ({ res }) => {
    const [database, rateLimitStore, readReplica, analytics] = await Promise.all([
      deps.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      ),
      deps.rateLimitStoreHealth(),
      deps.readReplicaHealth?.(),
      deps.analyticsHealth(),
    ]);
    // `disk` appears only while low, so the contract's two checks keep their exact shape.
    const diskLow = deps.diskLow();
    const checks = {
      database,
      rateLimitStore,
      analytics,
      ...(readReplica ? { readReplica } : {}),
      ...(diskLow ? { disk: 'low' as const } : {}),
    };
    if (database === 'unavailable') {
      res.setHeader('Retry-After', '1');
      res.status(503).json({ status: 'unavailable', checks });
    } else {
      // Without its replica the primary serves all reads: slower perhaps, but complete.
      const degraded = rateLimitStore === 'degraded' || diskLow || readReplica === 'unavailable';
      res.json({ status: degraded ? 'degraded' : 'ok', checks });
    }
  };
  const getOpenApiDocument: Handler<'getOpenApiDocument'> = ({ req, res }) => {
    sendStaticFile(req, res, deps.spec);
  };
  const csp = referenceCsp(deps.reference);
  const getApiReference: Handler<'getApiReference'> = ({ req, res }) => {
    res.setHeader('Content-Security-Policy', csp);
    sendStaticFile(req, res, deps.reference);
  };
  const getFavicon: Handler<'getFavicon'> = ({ req, res }) => {
    sendStaticFile(req, res, deps.favicon);
  };
  return { getHealth, getReadiness, getOpenApiDocument, getApiReference, getFavicon };
}
