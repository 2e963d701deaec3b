import type { Logger } from 'pino';
import type { Cursors } from '../../lib/cursor.js';
import type { AnalyticsStore } from '../../storage/analytics/analytics-store.js';
import type { Connection } from '../../storage/connection.js';
import type { LaggingReads } from '../../storage/read-replica.js';
import type { Store } from '../../storage/store.js';
import { FeedRepository } from './analytics/feed-repository.js';
import { IndexFreshness } from './analytics/freshness.js';
import { SearchIndex } from './analytics/search-index.js';
import { SearchStore } from './analytics/search-store.js';
import { StatsStore } from './analytics/stats-store.js';
import type { AuditLogApi } from './api.js';
import { createAuditWriter } from './audit-writer.js';
import { chainHandlers, type Permits } from './chain/handlers.js';
import { ChainRepository } from './chain/repository.js';
import { Sealer } from './chain/sealer.js';
import { ChainService } from './chain/service.js';
import type { SigningKey } from './chain/signing-key.js';
import { SigningKeys } from './chain/signing-keys.js';
import { SigningKeysRepository } from './chain/signing-keys-repository.js';
import { entryHandlers } from './entries/handlers.js';
import { EntriesRepository } from './entries/repository.js';
import { LogsService } from './entries/service.js';
import { exportHandlers } from './exports/handlers.js';
import { PostgresExportFiles } from './exports/postgres-files.js';
import { ExportsRepository } from './exports/repository.js';
import { ExportsService } from './exports/service.js';
import { ExportWorker } from './exports/worker.js';
import { PartitionsRepository } from './partitions/repository.js';
import { LogPartitions } from './partitions/service.js';
import { redactionHandlers } from './redaction/handlers.js';
import { RedactionRepository } from './redaction/repository.js';
import { Redactions } from './redaction/service.js';
import { RetentionRepository } from './retention/repository.js';
import { hourlyLogMaintenance } from './retention/schedule.js';
import { LogRetention } from './retention/service.js';
import { logScans, type ScanOptions } from './scans.js';
import { searchHandlers } from './search/handlers.js';
import { HitRows } from './search/hit-rows.js';
import { SearchService } from './search/service.js';
import { searchIndexHandlers } from './search-index/handlers.js';
import { statsHandlers } from './stats/handlers.js';
import { StatsService } from './stats/service.js';
import { SealedEntries } from './streams/source.js';

export { loadSigningKey, type SigningKey, signingKeyFromPem } from './chain/signing-key.js';

export interface AuditLogOptions {
  /**
   * Where lists, searches, statistics and exports read: a read replica's store, which may lag
   * the primary, or the primary's own. Everything else reads and writes the primary.
   */
  reads: LaggingReads;
  cursors: Cursors;
  /** Signs export download tokens. */
  secret: string;
  signingKey: SigningKey;
  logger: Logger;
  /** The longest an ingest waits for a sealer a batch or more behind (0: never; see `Sealer.caughtUp`). */
  ingestSealWaitMs: number;
  counters?: {
    ingested(entries: number): void;
    /** Seconds an ingest waited for the sealer, per ingest that waited. */
    ingestWaited(seconds: number): void;
    /** Seconds from an entry's write to its seal, per sealed entry. */
    sealLag(seconds: number): void;
    exportFinished(status: 'completed' | 'failed'): void;
  };
  exports: {
    downloadUrl: string;
    /** The most that stored export files may take together. */
    maxBytes: number;
    ttlSeconds: number;
  };
  /** `SECADMIN_LOG_RETENTION_DAYS`; undefined keeps every entry. */
  retentionDays: number | undefined;
  /** The lowest seq that log streams have yet to deliver: retention keeps it and what follows. */
  retentionHold?: () => Promise<number | undefined>;
  /** Searches, statistics and lists: how many at once, and how long each may take. */
  scans: ScanOptions;
  /** Whether the caller may read an entry of the chain (policies' `permits`). */
  permits: Permits;
  /** The analytics store search and statistics read (docs/analytics-store.md). */
  analytics: AnalyticsStore;
}

function repositoriesOn(connection: Connection) {
  return {
    entries: new EntriesRepository(connection),
    retention: new RetentionRepository(connection),
    redaction: new RedactionRepository(connection),
    chain: new ChainRepository(connection),
    signingKeys: new SigningKeysRepository(connection),
    partitions: new PartitionsRepository(connection),
    exports: new ExportsRepository(connection),
    feed: new FeedRepository(connection),
  };
}

/** The audit log's parts, on repositories of its own that join the caller's transaction. */
export function createAuditLog(store: Store, options: AuditLogOptions) {
  const repos = repositoriesOn(store.connection);
  const lagging = {
    entries: new EntriesRepository(options.reads.connection),
    hits: new HitRows(options.reads.connection, store.connection),
    exports: new ExportsRepository(options.reads.connection),
  };
  const { logger, counters } = options;
  const scans = logScans(options.scans);
  const writer = createAuditWriter(repos.entries);
  const signingKeys = new SigningKeys(store, repos.signingKeys, repos.chain);
  const sealer = new Sealer({
    store,
    chain: repos.chain,
    signingKeys: repos.signingKeys,
    key: options.signingKey,
    logger,
    ...(counters ? { observeLag: (seconds: number) => counters.sealLag(seconds) } : {}),
  });
  const redactions = new Redactions(repos.redaction, repos.entries, repos.chain, () =>
    sealer.sealNow(),
  );
  const storeTimeoutMs = options.scans.timeoutMs;
  const searchStore = new SearchStore(options.analytics, storeTimeoutMs);
  const { exports: exportOptions } = options;
  const files = new PostgresExportFiles(store, repos.exports);
  const exportWorker = new ExportWorker({
    exports: repos.exports,
    entries: lagging.entries,
    cells: lagging.exports,
    search: searchStore,
    redactions,
    upToNow: (work) => options.reads.upToNow(work),
    files,
    maxBytes: exportOptions.maxBytes,
    ttlSeconds: exportOptions.ttlSeconds,
    logger,
    ...(counters ? { counters } : {}),
  });
  const partitions = new LogPartitions(store, repos.partitions, logger);
  const retention =
    options.retentionDays === undefined
      ? undefined
      : new LogRetention(
          store,
          repos.partitions,
          repos.retention,
          repos.feed,
          writer,
          options.retentionDays,
          options.retentionHold,
        );
  const api: AuditLogApi = {
    ...writer,
    recordUserDeletion: async (actor, userId, email) => {
      const { entryId, metadata, entryIds } = await redactions.redactUser(userId, email);
      await repos.feed.queue({ kind: 'resync', entryIds });
      await writer.record(actor, {
        id: entryId,
        event: 'user.deleted',
        target: { id: userId, type: 'user' },
        metadata,
      });
    },
    redactionsApplied: () => searchIndex.changesApplied(),
  };
  const logs = new LogsService(store, repos.entries, lagging.entries, {
    cursors: options.cursors,
    sealer,
    partitions,
    sealWaitMs: options.ingestSealWaitMs,
    ...(counters ? { counters } : {}),
    scan: scans.admitted,
  });
  const chain = new ChainService(
    repos.chain,
    repos.signingKeys,
    options.cursors,
    options.signingKey,
    redactions,
  );
  const searchIndex = new SearchIndex(options.analytics, repos.feed, logger);
  const freshness = new IndexFreshness(repos.feed, () => searchIndex.kick());
  const search = new SearchService(
    searchStore,
    lagging.hits,
    freshness,
    options.cursors,
    scans.admitted,
  );
  const stats = new StatsService(
    scans.admitted,
    new StatsStore(options.analytics, storeTimeoutMs),
    freshness,
  );
  const exports = new ExportsService(store, repos.exports, lagging.entries, writer, exportWorker, {
    search: { store: searchStore, freshness },
    secret: options.secret,
    files,
    downloadUrl: exportOptions.downloadUrl,
  });
  return {
    api,
    handlers: {
      ...entryHandlers(logs),
      ...chainHandlers(chain, options.permits),
      ...redactionHandlers(redactions),
      ...searchHandlers(search),
      ...statsHandlers(stats),
      ...searchIndexHandlers(searchIndex),
      ...exportHandlers(exports),
    },
    /** Creating partitions ahead and retention run hourly (`maintenance`). */
    jobs: [exportWorker, sealer, searchIndex, hourlyLogMaintenance(partitions, retention, logger)],
    /** Feeds the analytics store; its `status()` is what `/readyz` reports of it. */
    searchIndex,
    /** The service behind ingest, list and get (a test replaces its `ingest`). */
    logs,
    /** Seals entries into the hash chain; `flush()` seals now and signs a checkpoint (tests). */
    sealer,
    exportWorker,
    /** What log streams read of the sealed log. */
    sealedEntries: new SealedEntries(store.connection),
    /** Before the first request: registers the signing key and creates the log's partitions ahead. */
    prepare: async () => {
      await signingKeys.register(options.signingKey);
      // An entry of a month with no partition yet would otherwise land in the default
      // partition and keep that month from getting one.
      await partitions.ensureAhead();
      await searchIndex.prepare();
    },
  };
}

/** Registration and rotation of signing keys alone (the rotation command). */
export function signingKeysOn(store: Store): SigningKeys {
  const { signingKeys, chain } = repositoriesOn(store.connection);
  return new SigningKeys(store, signingKeys, chain);
}
