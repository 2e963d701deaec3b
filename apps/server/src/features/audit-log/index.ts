import type { Database } from '@secadmin/db';
import type { Logger } from 'pino';
import type { RequestActor } from '../../lib/actor.js';
import type { Cursors } from '../../lib/cursor.js';
import type { Job } from '../../lib/poll-loop.js';
import type { Connection } from '../../storage/connection.js';
import type { LaggingReads } from '../../storage/read-replica.js';
import type { Store } from '../../storage/store.js';
import { type AuditWriter, createAuditWriter } from './audit-writer.js';
import { ChainRepository } from './chain/repository.js';
import { SEAL_BATCH_SIZE, SEAL_READ_BYTES, Sealer } from './chain/sealer.js';
import { ChainService } from './chain/service.js';
import type { SigningKey } from './chain/signing-key.js';
import { SigningKeys } from './chain/signing-keys.js';
import { SigningKeysRepository } from './chain/signing-keys-repository.js';
import { INSERT_STATEMENT_BYTES } from './entries/insert-in-chunks.js';
import { EntriesRepository } from './entries/repository.js';
import { LogsService } from './entries/service.js';
import { DataDirExportFiles, type ExportFiles } from './exports/files.js';
import { PostgresExportFiles } from './exports/postgres-files.js';
import { ExportsRepository } from './exports/repository.js';
import { ExportsService } from './exports/service.js';
import { ExportWorker } from './exports/worker.js';
import { PartitionsRepository } from './partitions/repository.js';
import { LogPartitions } from './partitions/service.js';
import { RedactionRepository } from './redaction/repository.js';
import { Redactions } from './redaction/service.js';
import { RetentionRepository } from './retention/repository.js';
import { hourlyLogMaintenance } from './retention/schedule.js';
import { LogRetention } from './retention/service.js';
import { logScans, type ScanOptions } from './scans.js';
import { SearchRepository } from './search/repository.js';
import { SearchService } from './search/service.js';
import { StatsRepository } from './stats/repository.js';
import { StatsService } from './stats/service.js';
import { SealedEntries } from './streams/source.js';

export type { AuditRecord, AuditWriter, SystemRecord } from './audit-writer.js';
export { loadSigningKey, type SigningKey, signingKeyFromPem } from './chain/signing-key.js';
export type { SealedEntries, SealedEntry, SealedEntryFilter } from './streams/source.js';

/** What other features may call; each call joins the transaction open in the caller's call chain. */
export interface AuditLogApi extends AuditWriter {
  /**
   * Removes a deleted user's email address from the entries linked to the user (see
   * redaction/repository.ts) and writes the `user.deleted` entry, whose
   * `metadata.redactions` names what it altered.
   */
  recordUserDeletion(actor: RequestActor, userId: string, email: string): Promise<void>;
}

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
  /** Where the database runs: the sizes of ingest statements and of the sealer's reads follow it. */
  databaseKind: 'embedded' | 'postgres';
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
    /** In the database (PostgreSQL), or as files under the data dir. */
    files: { in: 'database' } | { in: 'data-dir'; dataDir: string };
    /** The most that stored export files may take together. */
    maxBytes: number;
    ttlSeconds: number;
    /** With the embedded database no other process can hold a claim: take them all at start. */
    reclaimAllAtStart: boolean;
  };
  /** `SECADMIN_LOG_RETENTION_DAYS`; undefined keeps every entry. */
  retentionDays: number | undefined;
  /** The lowest seq that log streams have yet to deliver: retention keeps it and what follows. */
  retentionHold?: () => Promise<number | undefined>;
  /** Searches, statistics and lists: how many at once, and how long each may take. */
  scans: ScanOptions;
}

export interface AuditLog {
  api: AuditLogApi;
  /** The services behind audit-log's handlers. */
  logs: LogsService;
  chain: ChainService;
  redactions: Redactions;
  search: SearchService;
  stats: StatsService;
  exports: ExportsService;
  /** Seals entries into the hash chain; `flush()` seals now and signs a checkpoint (tests). */
  sealer: Sealer;
  exportWorker: ExportWorker;
  /** What log streams read of the sealed log. */
  sealedEntries: SealedEntries;
  /** Creates partitions ahead and applies retention, hourly. */
  maintenance: Job;
  /** Before the first request: registers the signing key and creates the log's partitions ahead. */
  prepare(): Promise<void>;
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
  };
}

/** The audit log's parts, on repositories of its own that join the caller's transaction. */
export function createAuditLog(store: Store, options: AuditLogOptions): AuditLog {
  const repos = repositoriesOn(store.connection);
  const lagging = {
    entries: new EntriesRepository(options.reads.connection),
    search: new SearchRepository(options.reads.connection),
    stats: new StatsRepository(options.reads.connection),
    exports: new ExportsRepository(options.reads.connection),
  };
  const { logger, counters } = options;
  const scans = logScans(options.reads, options.scans);
  const writer = createAuditWriter(repos.entries);
  const redactions = new Redactions(repos.redaction, repos.entries, repos.chain);
  const signingKeys = new SigningKeys(store, repos.signingKeys, repos.chain);
  const sealer = new Sealer({
    store,
    chain: repos.chain,
    signingKeys: repos.signingKeys,
    key: options.signingKey,
    batchSize: SEAL_BATCH_SIZE[options.databaseKind],
    readBytes: SEAL_READ_BYTES[options.databaseKind],
    logger,
    ...(counters ? { observeLag: (seconds: number) => counters.sealLag(seconds) } : {}),
  });
  const { exports: exportOptions } = options;
  const files: ExportFiles =
    exportOptions.files.in === 'database'
      ? new PostgresExportFiles(store, repos.exports)
      : new DataDirExportFiles(exportOptions.files.dataDir);
  const exportWorker = new ExportWorker({
    exports: repos.exports,
    entries: lagging.entries,
    cells: lagging.exports,
    redactions,
    upToNow: (work) => options.reads.upToNow(work),
    files,
    maxBytes: exportOptions.maxBytes,
    ttlSeconds: exportOptions.ttlSeconds,
    logger,
    ...(counters ? { counters } : {}),
    reclaimAllAtStart: exportOptions.reclaimAllAtStart,
  });
  const partitions = new LogPartitions(store, repos.partitions, logger);
  const retention =
    options.retentionDays === undefined
      ? undefined
      : new LogRetention(
          store,
          repos.partitions,
          repos.retention,
          writer,
          options.retentionDays,
          options.retentionHold,
        );
  return {
    api: {
      ...writer,
      recordUserDeletion: async (actor, userId, email) => {
        const { entryId, metadata } = await redactions.redactUser(userId, email);
        await writer.record(actor, {
          id: entryId,
          event: 'user.deleted',
          target: { id: userId, type: 'user' },
          metadata,
        });
      },
    },
    logs: new LogsService(store, repos.entries, lagging.entries, {
      cursors: options.cursors,
      sealer,
      partitions,
      insertStatementBytes: INSERT_STATEMENT_BYTES[options.databaseKind],
      sealWaitMs: options.ingestSealWaitMs,
      ...(counters ? { counters } : {}),
      scan: scans.admitted,
    }),
    chain: new ChainService(
      repos.chain,
      repos.signingKeys,
      options.cursors,
      options.signingKey,
      redactions,
    ),
    redactions,
    search: new SearchService(lagging.search, options.cursors, scans.bounded),
    stats: new StatsService(scans.bounded, lagging.stats),
    exports: new ExportsService(store, repos.exports, lagging.entries, writer, exportWorker, {
      secret: options.secret,
      files,
      downloadUrl: exportOptions.downloadUrl,
    }),
    sealer,
    exportWorker,
    sealedEntries: new SealedEntries(store.connection),
    maintenance: hourlyLogMaintenance(partitions, retention, logger),
    prepare: async () => {
      await signingKeys.register(options.signingKey);
      // An entry of a month with no partition yet would otherwise land in the default
      // partition and keep that month from getting one.
      await partitions.ensureAhead();
    },
  };
}

/** Registration and rotation of signing keys alone (the rotation command). */
export function signingKeysOn(store: Store): SigningKeys {
  const { signingKeys, chain } = repositoriesOn(store.connection);
  return new SigningKeys(store, signingKeys, chain);
}
