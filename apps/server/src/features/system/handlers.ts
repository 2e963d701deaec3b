import { type Handler, type StaticFile, sendStaticFile } from '../../http/index.js';

/**
 * The reference's own policy: Redoc runs inline scripts and web workers. Everything it shows
 * comes from the page itself (the build fails on a remote resource) or this origin (the icon).
 */
const REFERENCE_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:";

/** Health, readiness, the spec and its rendered reference: no key, no rate limit. */
export function systemHandlers(deps: {
  ping: () => Promise<void>;
  /** Absent without a read replica. */
  readReplicaHealth?: () => Promise<'ok' | 'unavailable'>;
  /** `memory` when no shared store is configured. */
  rateLimitStoreHealth: () => Promise<'ok' | 'degraded' | 'memory'>;
  /** True while free disk space is below `SECADMIN_MIN_FREE_DISK_MB`. */
  diskLow: () => boolean;
  spec: StaticFile;
  reference: StaticFile;
  favicon: StaticFile;
}) {
  const getHealth: Handler<'getHealth'> = ({ res }) => {
    res.json({ status: 'ok' });
  };
  const getReadiness: Handler<'getReadiness'> = async ({ res }) => {
    const [database, rateLimitStore, readReplica] = await Promise.all([
      deps.ping().then(
        () => 'ok' as const,
        () => 'unavailable' as const,
      ),
      deps.rateLimitStoreHealth(),
      deps.readReplicaHealth?.(),
    ]);
    // `disk` appears only while low, so the contract's two checks keep their exact shape.
    const diskLow = deps.diskLow();
    const checks = {
      database,
      rateLimitStore,
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
  const getApiReference: Handler<'getApiReference'> = ({ req, res }) => {
    res.setHeader('Content-Security-Policy', REFERENCE_CSP);
    sendStaticFile(req, res, deps.reference);
  };
  const getFavicon: Handler<'getFavicon'> = ({ req, res }) => {
    sendStaticFile(req, res, deps.favicon);
  };
  return { getHealth, getReadiness, getOpenApiDocument, getApiReference, getFavicon };
}
