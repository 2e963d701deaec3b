import { join, resolve } from 'node:path';
import type { OnStoreError } from './rate-limit/fault-tolerant-store.js';

export interface AnalyticsConfig {
  /** `CLICKHOUSE_URL`: a ClickHouse server or cluster; undefined: the embedded engine. */
  url: string | undefined;
  /** `CLICKHOUSE_CLUSTER`: replicated tables and `ON CLUSTER` DDL. */
  cluster: string | undefined;
  /** The embedded engine's data directory (`<data dir>/clickhouse`). */
  embeddedPath: string;
  /** The embedded engine's database. */
  embeddedDatabase: string;
}

export interface Config {
  port: number;
  host: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  /**
   * A PostgreSQL read replica of `databaseUrl`: the audit log's lists, searches, statistics and
   * exports read from it; undefined: everything reads the primary.
   */
  databaseReadUrl: string | undefined;
  redisUrl: string | undefined;
  /** The audit log's analytics store (docs/analytics-store.md). */
  analytics: AnalyticsConfig;
  /** How long start-up retries an unreachable PostgreSQL before giving up. */
  dbConnectTimeoutSeconds: number;
  /** While Redis is unreachable: count in memory (`open`) or answer 503 (`closed`). */
  rateLimitOnStoreError: OnStoreError;
  adminApiKey: string | undefined;
  secret: string | undefined;
  /** Ed25519 PKCS#8 PEM that signs audit-log checkpoints; generated into the data dir if unset. */
  signingKey: string | undefined;
  downloadUrl: string;
  /** The service's own base URL as clients reach it (AuthZEN metadata, SCIM `meta.location`), no trailing slash. */
  publicUrl: string;
  downloadTtlSeconds: number;
  /** The most that stored export files may take together. */
  exportsMaxBytes: number;
  rootRateLimit: number;
  trustProxy: boolean | number | string;
  logLevel: string;
  /** `GET /metrics` listens on this port; 0: no metrics listener. */
  metricsPort: number;
  /** ...and on this address: loopback unless the operator opens it to a scraper. */
  metricsHost: string;
  /** Browser origins allowed to call the API (CORS); empty: no CORS headers. */
  corsOrigins: string[];
  /** Audit entries older than this many days are removed; undefined: kept forever. */
  logRetentionDays: number | undefined;
  /** `SECADMIN_INGEST_SEAL_WAIT_MS`: the longest an ingest waits for a sealer a batch or more behind (0: never). */
  ingestSealWaitMs: number;
  /** Below this many bytes free on the data dir's filesystem, writes get 503; 0: never. */
  minFreeDiskBytes: number;
  /** The most bytes of responses kept for `Idempotency-Key` replays per API key. */
  idempotencyMaxKeptBytes: number;
  /** Request bodies still being received (http/body-budget.ts). */
  bodies: {
    /** The most bytes of them per principal, all its API keys together. */
    perKeyBytes: number;
    /** The most bytes of them for the whole process. */
    processBytes: number;
    /** A body that makes no progress for this long is closed. */
    idleMs: number;
  };
  /** Log streams (docs/log-streams.md). */
  streams: {
    /** `SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS=1`: http: and private or loopback addresses too. */
    allowPrivateNetworks: boolean;
    retryBaseMs: number;
    retryMaxMs: number;
    /** The most one delivery request may take. */
    timeoutMs: number;
    /** How long a stream's lease lasts without renewal: another instance takes over after it. */
    leaseMs: number;
    /** How often the deliverer looks for sealed entries to send. */
    pollMs: number;
  };
  /**
   * The reads of the audit log whose cost grows with the log (search, statistics, the list):
   * how many run at once on this instance, how many more wait and for how long, the time
   * bound of one, and how many one principal may hold. Not read from the environment: sized
   * to the PostgreSQL pool (packages/db).
   */
  logScans: {
    concurrent: number;
    queued: number;
    waitMs: number;
    timeoutMs: number;
    perPrincipal: { running: number; waiting: number };
  };
  /** OpenTelemetry traces go over OTLP/HTTP to this base URL; undefined: no tracing. */
  otlpEndpoint: string | undefined;
  /** Validate every response against the spec (tests): a drift becomes a 500. */
  validateResponses: boolean;
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer ≥ ${min}, got "${text}".`);
  }
  if (value > max) throw new Error(`${name} must be at most ${max}, got "${text}".`);
  return value;
}

function optionalInteger(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const text = env[name];
  return text === undefined || text === '' ? undefined : integer(env, name, min, min);
}

function oneOf<T extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  values: readonly T[],
  fallback: T,
): T {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (!(values as readonly string[]).includes(text)) {
    throw new Error(`${name} must be one of ${values.join(', ')}, got "${text}".`);
  }
  return text as T;
}

/** `https://a.example, http://localhost:5173` → each origin, checked to be one (no path). */
function origins(text: string | undefined): string[] {
  const list = (text ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new Error(
        `SECADMIN_CORS_ORIGINS must list origins like https://app.example.com, got "${origin}".`,
      );
  }
  return list;
}

/**
 * An http(s) base URL without credentials, query or fragment, its trailing slashes removed.
 * A refused value is not repeated in the message: it may hold a password.
 */
function baseUrl(name: string, text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  )
    throw new Error(
      `${name} must be an http(s) URL without credentials, query or fragment, like https://secadmin.example.com.`,
    );
  return text.replace(/\/+$/, '');
}

const isPostgresUrl = (text: string) => /^postgres(ql)?:\/\/./i.test(text);

/**
 * A replica only makes sense beside a PostgreSQL primary: the embedded database has none.
 * The value is never repeated in a message: it may hold a password.
 */
function readReplicaUrl(env: NodeJS.ProcessEnv): string | undefined {
  const text = env.DATABASE_READ_URL;
  if (!text) return undefined;
  if (!isPostgresUrl(text))
    throw new Error(
      'DATABASE_READ_URL must be a PostgreSQL URL like postgres://user:password@replica:5432/secadmin.',
    );
  if (!env.DATABASE_URL || !isPostgresUrl(env.DATABASE_URL))
    throw new Error(
      'DATABASE_READ_URL needs DATABASE_URL to name the PostgreSQL primary it replicates; the embedded database has no replicas.',
    );
  return text;
}

/** The URL is never repeated in a message: it may hold a password. */
function analyticsConfig(env: NodeJS.ProcessEnv, dataDir: string): AnalyticsConfig {
  const url = env.CLICKHOUSE_URL || undefined;
  if (url && !/^https?:\/\/[^/]/i.test(url))
    throw new Error(
      'CLICKHOUSE_URL must be a ClickHouse HTTP URL like http://user:password@clickhouse:8123/secadmin.',
    );
  const cluster = env.CLICKHOUSE_CLUSTER || undefined;
  if (cluster && !url)
    throw new Error(
      'CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL: the embedded store is not a cluster.',
    );
  return { url, cluster, embeddedPath: join(dataDir, 'clickhouse'), embeddedDatabase: 'secadmin' };
}

function trustProxy(text: string | undefined): boolean | number | string {
  if (text === undefined || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return /^\d+$/.test(text) ? Number(text) : text;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 3000);
  const dataDir = resolve(env.SECADMIN_DATA_DIR || './data');
  return {
    port,
    host: env.HOST || undefined,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseReadUrl: readReplicaUrl(env),
    redisUrl: env.REDIS_URL || undefined,
    analytics: analyticsConfig(env, dataDir),
    dbConnectTimeoutSeconds: integer(env, 'SECADMIN_DB_CONNECT_TIMEOUT_S', 30),
    rateLimitOnStoreError: oneOf(
      env,
      'SECADMIN_RATE_LIMIT_ON_STORE_ERROR',
      ['open', 'closed'] as const,
      'open',
    ),
    adminApiKey: env.SECADMIN_ADMIN_API_KEY || undefined,
    secret: env.SECADMIN_SECRET || undefined,
    signingKey: env.SECADMIN_SIGNING_KEY || undefined,
    downloadUrl: (env.SECADMIN_DOWNLOAD_URL || `http://localhost:${port}/downloads`).replace(
      /\/+$/,
      '',
    ),
    publicUrl: baseUrl(
      'SECADMIN_PUBLIC_URL',
      env.SECADMIN_PUBLIC_URL || `http://localhost:${port}`,
    ),
    downloadTtlSeconds: integer(env, 'SECADMIN_DOWNLOAD_TTL_S', 86_400, 1),
    exportsMaxBytes: integer(env, 'SECADMIN_EXPORTS_MAX_BYTES', 10 * 1024 ** 3),
    rootRateLimit: integer(env, 'SECADMIN_ROOT_RATE_LIMIT', 100_000, 1),
    trustProxy: trustProxy(env.SECADMIN_TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    metricsPort: integer(env, 'SECADMIN_METRICS_PORT', 9464),
    metricsHost: env.SECADMIN_METRICS_HOST || '127.0.0.1',
    corsOrigins: origins(env.SECADMIN_CORS_ORIGINS),
    logRetentionDays: optionalInteger(env, 'SECADMIN_LOG_RETENTION_DAYS', 1),
    // A timer cannot wait past 2^31 - 1 ms (it would fire at once), and no client waits a minute.
    ingestSealWaitMs: integer(env, 'SECADMIN_INGEST_SEAL_WAIT_MS', 5_000, 0, 60_000),
    minFreeDiskBytes: integer(env, 'SECADMIN_MIN_FREE_DISK_MB', 512) * 2 ** 20,
    idempotencyMaxKeptBytes: integer(env, 'SECADMIN_IDEMPOTENCY_MAX_KEPT_MB', 64, 1) * 2 ** 20,
    bodies: {
      perKeyBytes: integer(env, 'SECADMIN_BODIES_IN_FLIGHT_PER_KEY_MB', 32, 1) * 2 ** 20,
      processBytes: integer(env, 'SECADMIN_BODIES_IN_FLIGHT_MB', 256, 1) * 2 ** 20,
      idleMs: integer(env, 'SECADMIN_BODY_IDLE_TIMEOUT_S', 30, 1, 2_000_000) * 1000,
    },
    streams: {
      allowPrivateNetworks: env.SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS === '1',
      retryBaseMs: integer(env, 'SECADMIN_STREAM_RETRY_BASE_MS', 1000, 1),
      retryMaxMs: integer(env, 'SECADMIN_STREAM_RETRY_MAX_MS', 300_000, 1),
      timeoutMs: integer(env, 'SECADMIN_STREAM_TIMEOUT_MS', 10_000, 1),
      leaseMs: integer(env, 'SECADMIN_STREAM_LEASE_MS', 30_000, 100),
      pollMs: integer(env, 'SECADMIN_STREAM_POLL_MS', 500, 10),
    },
    // Half the PostgreSQL pool, so that the other half serves everything else; the bound under
    // the time limit of other transactions (storage/store.ts).
    logScans: {
      concurrent: 5,
      queued: 10,
      waitMs: 3_000,
      timeoutMs: 18_000,
      perPrincipal: { running: 2, waiting: 4 },
    },
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? baseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT)
      : undefined,
    validateResponses: env.SECADMIN_VALIDATE_RESPONSES === 'true',
  };
}
