import { absentFields, type RedactionProof } from '@secadmin/log-chain';
import type { Logger } from 'pino';
import { ulid } from '../../../lib/ids.js';
import { Pacer } from '../../../lib/pacer.js';
import { type Job, pollLoop } from '../../../lib/poll-loop.js';
import { ReadBatches } from '../../../lib/read-batches.js';
import { mapInSlices } from '../../../lib/slices.js';
import type { SearchStore, StoreHit } from '../analytics/search-store.js';
import {
  entryReadBytes,
  LARGEST_CSV_ROW_BYTES,
  LARGEST_ENTRY_BYTES,
} from '../entries/read-weight.js';
import type { EntriesRepository } from '../entries/repository.js';
import type { LogFilter, LogRow } from '../entries/sql.js';
import type { Redactions } from '../redaction/service.js';
import { parseSearchQuery, type SearchQuery } from '../search/query.js';
import type { ExportFiles, ExportFileWriter } from './files.js';
import { csvHeader, csvLine, csvLineFromCells, type ExportFormat, jsonArray } from './formats.js';
import type { CsvCellsRow, ExportRow } from './model.js';
import type { ExportsRepository } from './repository.js';

/** Entries per read: larger batches read no faster here, and hold more memory. */
const BATCH = 2000;
const csvRowBytes = (row: CsvCellsRow) => row.cells.length + (row.metadata?.length ?? 0);
/** What the file is written in: one write (or one export_chunks row) per ~1 MiB. */
const CHUNK_CHARS = 1 << 20;
const HEARTBEAT_MS = 5_000;
/** A claim not renewed for this long belongs to a dead instance and is taken over. */
const STALE_CLAIM_MS = 15_000;

/** The file being written: `add` says when a chunk is full, then `flush` writes it. */
/** Where a batch starts: after the last entry (or hit) of the one before. */
type Position = { at: Date | string; id: string };
type RowsAfter<T> = (filter: LogFilter, after: Position | undefined, take: number) => Promise<T[]>;
/** A batch of up to `take` rows after a position, and where the next starts (none: the last). */
type Batches<T> = (
  after: Position | undefined,
  take: number,
) => Promise<{ rows: T[]; next: Position | undefined }>;

const positionOf = (row: { id: string; at?: string; timestamp?: Date }): Position => ({
  at: row.timestamp ?? (row.at as string),
  id: row.id,
});

interface Output {
  add(text: string): boolean;
  flush(): Promise<void>;
}

/** The export would take stored export files past `SECADMIN_EXPORTS_MAX_BYTES`. */
class OverQuota extends Error {}

/** Whether a committed field of the entry is gone (a redaction removed it, with its salt). */
const isRedacted = (row: LogRow): boolean =>
  absentFields({
    digests: (row.digests ?? {}) as Record<string, string>,
    salts: (row.salts ?? {}) as Record<string, string>,
  }).length > 0;

export interface ExportWorkerOptions {
  exports: Pick<
    ExportsRepository,
    'claim' | 'heartbeat' | 'finish' | 'expiredFiles' | 'markFileDeleted'
  >;
  /** What an export's file is made of: these reads may lag the writes (a read replica). */
  entries: Pick<EntriesRepository, 'list' | 'findMany'>;
  cells: Pick<ExportsRepository, 'csvCells'>;
  /** Where a search export finds its hits. */
  search: Pick<SearchStore, 'hits'>;
  /** The `user.deleted` entries that account for the redacted fields of a JSON export's entries. */
  redactions: Pick<Redactions, 'naming' | 'proofsOf'>;
  /**
   * Runs the reads of `work` on data at least as recent as the moment of the call: an export
   * holds every entry acknowledged before it was taken up, however far its reads lag.
   */
  upToNow<T>(work: () => Promise<T>): Promise<T>;
  files: ExportFiles;
  /** The most that stored export files may take together. */
  maxBytes: number;
  ttlSeconds: number;
  logger: Pick<Logger, 'info' | 'error'>;
  counters?: { exportFinished(status: 'completed' | 'failed'): void };
  pollMs?: number;
  sweepMs?: number;
}

/**
 * Works on exports in the background, one at a time per instance: claims one, streams
 * its entries in keyset batches into its file, then marks it completed. Also deletes the
 * files of expired exports.
 */
export class ExportWorker implements Required<Job> {
  readonly instanceId = ulid();
  private stopped = false;
  private readonly claims: Required<Job>;
  private readonly sweeps: Job;

  constructor(private readonly options: ExportWorkerOptions) {
    this.claims = pollLoop({
      name: 'export worker',
      everyMs: options.pollMs ?? 1000,
      logger: options.logger,
      turn: () => this.claimAndProcess(),
    });
    this.sweeps = pollLoop({
      name: 'export sweep',
      everyMs: options.sweepMs ?? 60_000,
      logger: options.logger,
      firstTurn: 'after-a-wait',
      turn: () => this.sweep(),
    });
  }

  start(): void {
    this.stopped = false;
    this.claims.start();
    this.sweeps.start();
  }

  /** Something new to do: don't wait for the next poll. */
  kick(): void {
    this.claims.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.claims.stop(), this.sweeps.stop()]);
  }

  /** Claims one export and writes its file; true when it did (there may be more). */
  private async claimAndProcess(): Promise<boolean> {
    const staleBefore = new Date(Date.now() - STALE_CLAIM_MS);
    const claimed = await this.options.exports.claim(this.instanceId, staleBefore);
    if (!claimed) return false;
    await this.process(claimed);
    return true;
  }

  private async process(job: ExportRow): Promise<void> {
    const { exports, files, logger } = this.options;
    let lost = false;
    const heartbeat = setInterval(() => {
      exports
        .heartbeat(job.id, this.instanceId)
        .then((mine) => {
          lost ||= !mine;
        })
        .catch(() => {});
    }, HEARTBEAT_MS);
    let file: ExportFileWriter | undefined;
    try {
      file = await files.create(job.id, job.format);
      const target = file;
      const written = await this.options.upToNow(() =>
        this.writeFile(job, target, () => lost || this.stopped),
      );
      if (written === undefined) {
        await file.discard();
        return;
      }
      await file.finish();
      const completedAt = new Date();
      await exports.finish(job.id, this.instanceId, {
        status: 'completed',
        totalRecords: written.total,
        fileSizeBytes: BigInt(written.bytes),
        completedAt,
        expiresAt: new Date(completedAt.getTime() + this.options.ttlSeconds * 1000),
      });
      this.options.counters?.exportFinished('completed');
      logger.info(
        { exportId: job.id, totalRecords: written.total, fileSizeBytes: written.bytes },
        'export completed',
      );
    } catch (error) {
      logger.error({ err: error, exportId: job.id }, 'export failed');
      this.options.counters?.exportFinished('failed');
      await file?.discard().catch(() => {});
      await exports
        .finish(job.id, this.instanceId, {
          status: 'failed',
          error:
            error instanceof OverQuota
              ? error.message
              : 'The export could not be written; create a new one.',
        })
        .catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Streams the entries into `file` in ~1 MiB pieces, each checked against the space left
   * for exports; undefined when it had to give up (stopping, or claim lost).
   */
  private async writeFile(
    job: ExportRow,
    file: ExportFileWriter,
    abandoned: () => boolean,
  ): Promise<{ total: number; bytes: number } | undefined> {
    const { files, maxBytes } = this.options;
    let pending: string[] = [];
    let pendingChars = 0;
    let bytes = 0;
    // One chunk is stored while the next is read and formatted.
    let storing: Promise<void> = Promise.resolve();
    const flush = async () => {
      const chunk = Buffer.from(pending.join(''));
      pending = [];
      pendingChars = 0;
      await storing;
      if ((await files.usedBytes()) + chunk.length > maxBytes) {
        throw new OverQuota(
          `The export would take stored export files past their limit of ${maxBytes} bytes; narrow its range, or create it again once older exports have expired.`,
        );
      }
      storing = file.write(chunk);
      storing.catch(() => {});
      bytes += chunk.length;
    };
    const out: Output = {
      add: (text) => {
        pending.push(text);
        pendingChars += text.length;
        return pendingChars >= CHUNK_CHARS;
      },
      flush,
    };
    const filter: LogFilter = {
      from: job.from,
      to: job.to,
      events: job.events.length > 0 ? job.events : undefined,
      // Written as the export was created, it is never part of its own file.
      except: { event: 'logs.export.created', targetId: job.id },
    };
    const search =
      job.query === null
        ? undefined
        : { query: parseSearchQuery(job.query), throughSeq: Number(job.throughSeq) };
    try {
      const total =
        (job.format as ExportFormat) === 'csv'
          ? await this.writeCsv(
              job,
              this.batches(filter, search, this.csvRows(job)),
              out,
              abandoned,
            )
          : await this.writeJson(
              job,
              this.batches(filter, search, this.jsonRows()),
              out,
              abandoned,
            );
      if (total === undefined) return undefined;
      await flush();
      await storing;
      return { total, bytes };
    } finally {
      // Nothing may be stored after the caller discards the file.
      await storing.catch(() => {});
    }
  }

  /** CSV cells of the entries after a position, newest first. */
  private csvRows(job: ExportRow): RowsAfter<CsvCellsRow> {
    return (filter, after, take) =>
      this.options.cells.csvCells(
        filter,
        after && { at: after.at instanceof Date ? after.at.toISOString() : after.at, id: after.id },
        take,
        job.includeMetadata,
      );
  }

  /** Full entries after a position, newest first. */
  private jsonRows(): RowsAfter<LogRow> {
    return (filter, after, take) =>
      this.options.entries.list(
        filter,
        after && { at: after.at instanceof Date ? after.at : new Date(after.at), id: after.id },
        take,
      );
  }

  /**
   * The export's entries in batches, newest first: every entry of the filter, or, for a search
   * export, the store's hits (a batch of hits, then their entries from PostgreSQL; one that
   * retention removed meanwhile is left out, and the next batch starts after the last hit).
   */
  private batches<T extends { id: string }>(
    filter: LogFilter,
    search: { query: SearchQuery; throughSeq: number } | undefined,
    rows: RowsAfter<T>,
  ): Batches<T> {
    if (!search)
      return async (after, take) => {
        const found = await rows(filter, after, take);
        const last = found[found.length - 1];
        return { rows: found, next: last && found.length === take ? positionOf(last) : undefined };
      };
    return async (after, take) => {
      const scope = {
        from: filter.from,
        to: filter.to,
        events: filter.events,
        throughSeq: search.throughSeq,
      };
      const hits: StoreHit[] = await this.options.search.hits(
        search.query,
        scope,
        after && { at: after.at instanceof Date ? after.at : new Date(after.at), id: after.id },
        take,
      );
      const last = hits[hits.length - 1];
      if (!last) return { rows: [], next: undefined };
      const found = await rows({ ...filter, ids: hits.map((hit) => hit.id) }, undefined, take);
      return {
        rows: found,
        next: hits.length === take ? { at: last.timestamp, id: last.id } : undefined,
      };
    };
  }

  private async writeCsv(
    job: ExportRow,
    read: Batches<CsvCellsRow>,
    out: Output,
    abandoned: () => boolean,
  ): Promise<number | undefined> {
    const { entries } = this.options;
    // With metadata, a read's size follows what the rows weigh: a few hundred entries of wide
    // metadata are a read's worth of memory.
    const batches = new ReadBatches(csvRowBytes, LARGEST_CSV_ROW_BYTES);
    let take = job.includeMetadata ? batches.size : BATCH;
    out.add(csvHeader(job.includeMetadata));
    let total = 0;
    let { rows, next: after } = await read(undefined, take);
    for (;;) {
      if (abandoned()) return undefined;
      // A batch of entries with wide metadata is seconds of formatting: it runs in slices.
      const lines = await mapInSlices(rows, (r) =>
        csvLineFromCells(r.cells, r.metadata, job.includeMetadata),
      );
      const byJs = rows.filter((_, i) => lines[i] === undefined).map((r) => r.id);
      const byId = new Map(
        byJs.length > 0 ? (await entries.findMany(byJs)).map((e) => [e.id, e]) : [],
      );
      if (job.includeMetadata) {
        batches.observe(rows);
        take = batches.size;
      }
      // The database reads the next batch while this one is written.
      const next = after ? read(after, take) : undefined;
      next?.catch(() => {});
      const pacer = new Pacer();
      for (const [i, row] of rows.entries()) {
        await pacer.pace();
        const entry = byId.get(row.id);
        // An entry removed (retention) between the two reads is left out.
        const line = lines[i] ?? (entry && csvLine(entry, job.includeMetadata));
        if (line === undefined) continue;
        total++;
        if (out.add(line)) await out.flush();
      }
      if (!next) return total;
      ({ rows, next: after } = await next);
    }
  }

  private async writeJson(
    job: ExportRow,
    read: Batches<LogRow>,
    out: Output,
    abandoned: () => boolean,
  ): Promise<number | undefined> {
    // Full entries are read in batches sized by what they weigh: 2,000 wide entries are far
    // more than one read's worth of memory.
    const batches = new ReadBatches<LogRow>(
      (row) => entryReadBytes(row.metadata, row.userAgent),
      LARGEST_ENTRY_BYTES,
    );
    out.add(jsonArray.head);
    let total = 0;
    // The user.deleted entries whose proof an entry written already carries.
    const proven = new Set<string>();
    let size = batches.size;
    let { rows, next: after } = await read(undefined, size);
    for (;;) {
      if (abandoned()) return undefined;
      batches.observe(rows);
      size = batches.size;
      const next = after && read(after, size);
      next?.catch(() => {});
      const redaction = await this.redactionsOf(rows, proven);
      const pacer = new Pacer();
      for (const row of rows) {
        await pacer.pace();
        const redactedBy = redaction.naming.get(row.id);
        const proofs: RedactionProof[] = [];
        for (const id of redactedBy ?? []) {
          const proof = redaction.proofs.get(id);
          if (proof && !proven.has(id)) proofs.push(proof);
          proven.add(id);
        }
        const piece = jsonArray.entry(row, total === 0, job.includeMetadata, redactedBy, proofs);
        total++;
        if (out.add(piece)) await out.flush();
      }
      if (!next) break;
      ({ rows, next: after } = await next);
    }
    out.add(jsonArray.tail);
    return total;
  }

  /**
   * For the redacted entries of a batch, the ids of the `user.deleted` entries that name each,
   * and the proofs of those no entry written yet carries.
   */
  private async redactionsOf(rows: readonly LogRow[], proven: ReadonlySet<string>) {
    const { redactions } = this.options;
    const naming = await redactions.naming(rows.filter(isRedacted).map((row) => row.id));
    const ids = new Set([...naming.values()].flat().filter((id) => !proven.has(id)));
    const proofs = await redactions.proofsOf([...ids]);
    return { naming, proofs: new Map(proofs.map((proof) => [proof.entry.id, proof])) };
  }

  /** Deletes the files of exports past their expiry. */
  private async sweep(): Promise<void> {
    const { exports, files } = this.options;
    for (const row of await exports.expiredFiles(new Date())) {
      await files.remove(row.id, row.format);
      await exports.markFileDeleted(row.id);
    }
  }
}
