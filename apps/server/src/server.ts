import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Database, openDatabase } from '@secadmin/db';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { Sealer } from './features/audit-log/chain/sealer.js';
import { loadSigningKey } from './features/audit-log/chain/signing-key.js';
import { ExportWorker } from './features/audit-log/exports/worker.js';
import { applyRetentionHourly } from './features/audit-log/retention/schedule.js';
import { LogRetention } from './features/audit-log/retention/service.js';
import { sweepIdempotencyKeys } from './features/idempotency/sweeper.js';
import { createServices, type Services } from './features/services.js';
import { InFlightRequests } from './http/in-flight.js';
import { Metrics } from './metrics.js';
import { FaultTolerantRateLimitStore } from './rate-limit/fault-tolerant-store.js';
import { MemoryRateLimitStore } from './rate-limit/memory-store.js';
import { RedisRateLimitStore } from './rate-limit/redis-store.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { loadSecret } from './secrets.js';
import { createRepositories } from './storage/repositories.js';
import { waitForDatabase } from './storage/wait-for-database.js';

export interface RunningServer {
  url: string;
  db: Database;
  services: Services;
  worker: ExportWorker;
  /** Seals entries into the hash chain; `flush()` seals now and signs a checkpoint (tests). */
  sealer: Sealer;
  /** `GET /metrics` of this server; undefined when `metricsPort` is 0. */
  metricsUrl: string | undefined;
  /** Stops accepting, finishes in-flight requests, stops the worker, closes the database. */
  close(): Promise<void>;
}

/** Opens the database, applies migrations, ensures the root key, and listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  let rateLimits: RateLimitStore | undefined;
  let metricsListener: { url: string; server: Server } | undefined;
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
    const store = createRepositories(db);
    const sealer = new Sealer({
      store,
      key: signingKey,
      logger,
      observeLag: (seconds) => metrics.sealLag(seconds),
    });
    const worker = new ExportWorker({
      store,
      dataDir: config.dataDir,
      ttlSeconds: config.downloadTtlSeconds,
      logger,
      counters: metrics,
      reclaimAllAtStart: db.kind === 'embedded',
    });
    const services = createServices(store, {
      secret,
      dataDir: config.dataDir,
      downloadUrl: config.downloadUrl,
      onCreated: () => worker.kick(),
      soleWriter: db.kind === 'embedded',
      counters: metrics,
      signingKey,
      onIngested: () => sealer.kick(),
    });
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

    if (config.redisUrl) {
      const shared = new FaultTolerantRateLimitStore(
        new RedisRateLimitStore(config.redisUrl),
        config.rateLimitOnStoreError,
        logger,
      );
      rateLimits = shared;
      await shared.connect();
    } else rateLimits = new MemoryRateLimitStore();
    const inFlight = new InFlightRequests();
    const app = createApp({
      config,
      ping: db.ping,
      services,
      rateLimits,
      logger,
      inFlight,
      metrics,
    });
    metricsListener =
      config.metricsPort === 0 ? undefined : await metrics.listen(config.metricsPort, config.host);
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.listen(config.port, config.host ?? '::', () => resolve(s));
      s.once('error', reject);
    });
    worker.start();
    sealer.start();
    const stopSweeping = sweepIdempotencyKeys(services.idempotency, logger);
    const stopRetention =
      config.logRetentionDays === undefined
        ? undefined
        : applyRetentionHourly(
            new LogRetention(store, services.audit, config.logRetentionDays),
            logger,
          );
    const address = server.address() as AddressInfo;
    const host =
      address.family === 'IPv6'
        ? address.address === '::'
          ? 'localhost'
          : `[${address.address}]`
        : address.address;
    const limits = rateLimits;
    const listener = metricsListener;
    return {
      url: `http://${host}:${address.port}`,
      db,
      services,
      worker,
      sealer,
      metricsUrl: metricsListener?.url,
      close: async () => {
        listener?.server.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await inFlight.drained(10_000);
        stopSweeping();
        await stopRetention?.();
        await worker.stop();
        await sealer.stop();
        await limits.close();
        await db.close();
      },
    };
  } catch (error) {
    metricsListener?.server.close();
    await rateLimits?.close();
    await db.close();
    throw error;
  }
}
