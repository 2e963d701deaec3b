import { chmod, mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Database, openDatabase } from '@secadmin/db';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { loadConsoleFiles, loadSystemFiles } from './bundled-files.js';
import { type Composition, createComposition, type Services } from './composition.js';
import type { Config } from './config.js';
import { loadSigningKey } from './features/audit-log/module.js';
import { FreeDiskSpace } from './free-disk-space.js';
import { InFlightRequests } from './http/in-flight.js';
import type { Job } from './lib/poll-loop.js';
import { Metrics } from './metrics.js';
import { FaultTolerantRateLimitStore } from './rate-limit/fault-tolerant-store.js';
import { MemoryRateLimitStore } from './rate-limit/memory-store.js';
import { RedisRateLimitStore } from './rate-limit/redis-store.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { loadSecret } from './secrets.js';
import type { AnalyticsStore } from './storage/analytics/analytics-store.js';
import { openAnalyticsStore } from './storage/analytics/open-analytics-store.js';
import { createReadStore, primaryReads, type ReadStore } from './storage/read-replica.js';
import { staleStatisticsJob } from './storage/stale-statistics.js';
import { createStore, type Store } from './storage/store.js';
import { tracedDatabase } from './storage/traced-database.js';
import { waitForDatabase } from './storage/wait-for-database.js';
import { createTracing, type Tracing } from './tracing.js';

export interface RunningServer {
  url: string;
  db: Database;
  services: Services;
  worker: Composition['exportWorker'];
  /** Seals entries into the hash chain; `flush()` seals now and signs a checkpoint (tests). */
  sealer: Composition['sealer'];
  /** Feeds the analytics store; `caughtUp()` feeds until it holds what was sealed (tests). */
  searchIndex: Composition['searchIndex'];
  /** Pushes the log to log streams; `stop()` waits for the deliveries in flight (tests). */
  streamDeliverer: Composition['streamDeliverer'];
  /** `GET /metrics` of this server; undefined when `metricsPort` is 0. */
  metricsUrl: string | undefined;
  /**
   * Stops accepting, finishes in-flight requests, stops the jobs, closes the database; each
   * step has its own bound, so it settles within `SHUTDOWN_BUDGET_MS` whatever hangs.
   */
  close(): Promise<void>;
}

/** docs/operations.md: SIGTERM ends the process within 10 s; main.ts exits hard past this. */
export const SHUTDOWN_BUDGET_MS = 8_000;
/** In-flight requests get this long to finish; then their connections are cut. */
const DRAIN_MS = 4_500;
/** Then the background jobs, and the rate-limit store, each at most this long. */
const STEP_MS = 1_000;

/** Waits for `work`, but no longer than `ms`: a step that hangs must not hold up shutdown. */
async function atMost(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * The store of the read replica, which start-up does not wait for: until it answers, the
 * primary serves its reads. Never migrated here: it replays what the primary applies.
 */
async function openReplica(
  replicaDb: Database,
  primary: Store,
  traced: (database: Database) => Database,
  logger: Logger,
): Promise<ReadStore> {
  const replica = createReadStore(primary, createStore(traced(replicaDb)), replicaDb.ping, logger);
  await replica.health();
  return replica;
}

/** Opens the database, applies migrations, ensures the root key, and listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // It holds secrets: no one else may enter it, even when the operator created it with a looser
  // mode. The embedded database sets its mode itself, under its lock: a second server refused
  // on the lock must not take the first one's PostgreSQL out of it.
  if (config.databaseUrl) await chmod(config.dataDir, 0o700);
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    log: logger,
  });
  const replicaDb = config.databaseReadUrl
    ? await openDatabase({
        url: config.databaseReadUrl,
        dataDir: config.dataDir,
        // Tells its connections apart from the primary's pool in pg_stat_activity.
        applicationName: 'secadmin-read',
      })
    : undefined;
  let rateLimits: RateLimitStore | undefined;
  let metricsListener: { url: string; server: Server } | undefined;
  let tracing: Tracing | undefined;
  let analytics: AnalyticsStore | undefined;
  try {
    await waitForDatabase(db, config, logger);
    const applied = await db.migrate();
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    const secret = await loadSecret(config.secret, config.dataDir);
    const signingKey = await loadSigningKey(config.signingKey, config.dataDir);
    if (signingKey.generatedFile)
      logger.warn(
        { file: signingKey.generatedFile },
        'audit-log signing key generated; its private key is in this file',
      );
    const metrics = new Metrics();
    tracing = createTracing(config.otlpEndpoint);
    const inSpan = tracing.enabled ? tracing.inSpan : undefined;
    const traced = (database: Database) => (inSpan ? tracedDatabase(database, inSpan) : database);
    const store = createStore(traced(db));
    const replica = replicaDb && (await openReplica(replicaDb, store, traced, logger));
    if (config.redisUrl) {
      const shared = new FaultTolerantRateLimitStore(
        new RedisRateLimitStore(config.redisUrl),
        config.rateLimitOnStoreError,
        logger,
      );
      rateLimits = shared;
      await shared.connect();
    } else rateLimits = new MemoryRateLimitStore();
    const limits = rateLimits;
    const inFlight = new InFlightRequests();
    const disk = new FreeDiskSpace(config.dataDir, config.minFreeDiskBytes, logger);
    await disk.prime();
    analytics = await openAnalyticsStore(config.analytics);
    const composition = createComposition(store, {
      secret,
      counters: metrics,
      logger,
      maxKeptBytes: config.idempotencyMaxKeptBytes,
      publicUrl: config.publicUrl,
      auditLog: {
        reads: replica ?? primaryReads(store),
        signingKey,
        exports: {
          downloadUrl: config.downloadUrl,
          maxBytes: config.exportsMaxBytes,
          ttlSeconds: config.downloadTtlSeconds,
        },
        retentionDays: config.logRetentionDays,
        ingestSealWaitMs: config.ingestSealWaitMs,
        scans: config.logScans,
        analytics,
      },
      logStreams: { ...config.streams, trace: tracing.enabled ? tracing.inSpan : undefined },
      system: {
        ping: db.ping,
        ...(replica ? { readReplicaHealth: () => replica.health() } : {}),
        rateLimitStoreHealth: () => limits.health(),
        diskLow: () => disk.isLow(),
        ...loadSystemFiles(),
      },
      console: loadConsoleFiles(),
    });
    const { services } = composition;
    await composition.prepare();
    logger.info(
      { fingerprint: signingKey.fingerprint },
      'audit-log checkpoints are signed by this key',
    );
    const root = await services.apiKeys.ensureRootKey({
      secret: config.adminApiKey,
      dataDir: config.dataDir,
      rateLimit: config.rootRateLimit,
    });
    if (root.generatedFile)
      logger.warn(
        { file: root.generatedFile },
        'root API key generated; its secret is in this file',
      );

    const app = createApp({
      config,
      services,
      handlers: composition.handlers,
      rateLimits: limits,
      logger,
      inFlight,
      metrics,
      tracing,
      diskLow: () => disk.isLow(),
    });
    metricsListener =
      config.metricsPort === 0
        ? undefined
        : await metrics.listen(config.metricsPort, config.metricsHost);
    const server: Server = await new Promise((resolve, reject) => {
      // Express 5 hands a failed listen (a port in use) to this callback.
      const s = app.listen(config.port, config.host ?? '::', (error?: Error) =>
        error ? reject(error) : resolve(s),
      );
      // `Expect: 100-continue`: served as any request; `100 Continue` is sent (dispatch) only
      // once its body will be read, so that a refused one gets its final status instead.
      s.on('checkContinue', (req, res) => s.emit('request', req, res));
    });
    const background: Job[] = [
      ...composition.jobs,
      staleStatisticsJob(store.connection.sql, logger),
      disk,
    ];
    for (const job of background) job.start();
    const address = server.address() as AddressInfo;
    const host =
      address.family === 'IPv6'
        ? address.address === '::'
          ? 'localhost'
          : `[${address.address}]`
        : address.address;
    const spans = tracing;
    const searchStore = analytics;
    const listener = metricsListener;
    return {
      url: `http://${host}:${address.port}`,
      db,
      services,
      worker: composition.exportWorker,
      sealer: composition.sealer,
      streamDeliverer: composition.streamDeliverer,
      searchIndex: composition.searchIndex,
      metricsUrl: metricsListener?.url,
      close: async () => {
        const deadline = Date.now() + SHUTDOWN_BUDGET_MS;
        const upTo = (ms: number) => Math.max(0, Math.min(ms, deadline - Date.now()));
        // An ingest waiting for the sealer writes now, within the drain, not after it.
        composition.sealer.releaseWriters();
        listener?.server.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A client that keeps its connection (a stalled download) must not hold shutdown up.
        await atMost(upTo(DRAIN_MS), Promise.all([closed, inFlight.drained(DRAIN_MS)]));
        server.closeAllConnections();
        await atMost(upTo(STEP_MS), Promise.all(background.map((job) => job.stop())));
        await atMost(upTo(STEP_MS), limits.close());
        await atMost(upTo(STEP_MS), spans.shutdown());
        await atMost(upTo(STEP_MS), searchStore.close());
        // The rest of the budget: closing the database (an embedded server's shutdown checkpoint).
        await atMost(upTo(SHUTDOWN_BUDGET_MS), Promise.all([db.close(), replicaDb?.close()]));
      },
    };
  } catch (error) {
    await tracing?.shutdown();
    await analytics?.close();
    metricsListener?.server.close();
    await rateLimits?.close();
    await replicaDb?.close();
    await db.close();
    throw error;
  }
}
