import type { Logger } from 'pino';
import { ulid } from '../../../lib/ids.js';
import type { DomainCounters } from '../../../metrics.js';
import type { Store } from '../../../storage/repositories.js';
import type { LogFilter, LogRow } from '../repository.js';
import type { ExportFiles, ExportFileWriter } from './files.js';
import { csvHeader, csvLine, csvLineFromCells, type ExportFormat, jsonArray } from './formats.js';
import type { CsvCellsRow, ExportRow } from './repository.js';

/** Entries per read: larger batches read no faster here, and hold more memory. */
const BATCH = 2000;
/** What the file is written in: one write (or one export_chunks row) per ~1 MiB. */
const CHUNK_CHARS = 1 << 20;
const HEARTBEAT_MS = 5_000;
/** A claim not renewed for this long belongs to a dead instance and is taken over. */
const STALE_CLAIM_MS = 15_000;

/** Where the batch after `row` starts: its timestamp follows its id in the cells. */
function cursorOf(
  row: CsvCellsRow,
  entries: Map<string, LogRow>,
): { at: Date | string; id: string } {
  const at =
    entries.get(row.id)?.timestamp ?? row.cells.slice(row.id.length + 1, row.id.length + 25);
  return { at, id: row.id };
}

/** The file being written: `add` says when a chunk is full, then `flush` writes it. */
interface Output {
  add(text: string): boolean;
  flush(): Promise<void>;
}

/** The export would take stored export files past `SECADMIN_EXPORTS_MAX_BYTES`. */
class OverQuota extends Error {}

export interface ExportWorkerOptions {
  store: Store;
  files: ExportFiles;
  /** The most that stored export files may take together. */
  maxBytes: number;
  ttlSeconds: number;
  logger: Logger;
  counters?: Pick<DomainCounters, 'exportFinished'>;
  /** With the embedded database no other process can hold a claim: take them all at start. */
  reclaimAllAtStart: boolean;
  pollMs?: number;
  sweepMs?: number;
}

/**
 * Works on exports in the background, one at a time per instance: claims one, streams
 * its entries in keyset batches into its file, then marks it completed. Also deletes the
 * files of expired exports.
 */
export class ExportWorker {
  readonly instanceId = ulid();
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: ExportWorkerOptions) {}

  start(): void {
    this.loop = this.run();
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepMs ?? 60_000);
    this.sweeper.unref();
  }

  /** Something new to do: don't wait for the next poll. */
  kick(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let staleBefore = this.options.reclaimAllAtStart
      ? () => new Date(Date.now() + 1000)
      : undefined;
    while (!this.stopped) {
      let claimed: ExportRow | null = null;
      try {
        const before = staleBefore?.() ?? new Date(Date.now() - STALE_CLAIM_MS);
        claimed = await this.options.store.exports.claim(this.instanceId, before);
        if (!claimed) staleBefore = undefined;
      } catch (error) {
        this.options.logger.error({ err: error }, 'export worker could not claim');
      }
      if (claimed) {
        await this.process(claimed);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? 1000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async process(job: ExportRow): Promise<void> {
    const { store, files, logger } = this.options;
    let lost = false;
    const heartbeat = setInterval(() => {
      store.exports
        .heartbeat(job.id, this.instanceId)
        .then((mine) => {
          lost ||= !mine;
        })
        .catch(() => {});
    }, HEARTBEAT_MS);
    let file: ExportFileWriter | undefined;
    try {
      file = await files.create(job.id, job.format);
      const written = await this.writeFile(job, file, () => lost || this.stopped);
      if (written === undefined) {
        await file.discard();
        return;
      }
      await file.finish();
      const completedAt = new Date();
      await store.exports.finish(job.id, this.instanceId, {
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
      await store.exports
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
    };
    try {
      const total =
        (job.format as ExportFormat) === 'csv'
          ? await this.writeCsv(job, filter, out, abandoned)
          : await this.writeJson(job, filter, out, abandoned);
      if (total === undefined) return undefined;
      await flush();
      await storing;
      return { total, bytes };
    } finally {
      // Nothing may be stored after the caller discards the file.
      await storing.catch(() => {});
    }
  }

  private async writeCsv(
    job: ExportRow,
    filter: LogFilter,
    out: Output,
    abandoned: () => boolean,
  ): Promise<number | undefined> {
    const { store } = this.options;
    const batch = (after: { at: Date | string; id: string } | undefined) =>
      store.exports.csvCells(filter, after, BATCH, job.includeMetadata);
    out.add(csvHeader(job.includeMetadata));
    let total = 0;
    let rows = await batch(undefined);
    for (;;) {
      if (abandoned()) return undefined;
      const lines = rows.map((r) => csvLineFromCells(r.cells, r.metadata, job.includeMetadata));
      const byJs = rows.filter((_, i) => lines[i] === undefined).map((r) => r.id);
      const entries = new Map(
        byJs.length > 0 ? (await store.logs.findMany(byJs)).map((e) => [e.id, e]) : [],
      );
      const last = rows[rows.length - 1];
      // The database reads the next batch while this one is written.
      const next = last && rows.length === BATCH ? batch(cursorOf(last, entries)) : undefined;
      next?.catch(() => {});
      for (const [i, row] of rows.entries()) {
        const entry = entries.get(row.id);
        // An entry removed (retention) between the two reads is left out.
        const line = lines[i] ?? (entry && csvLine(entry, job.includeMetadata));
        if (line === undefined) continue;
        total++;
        if (out.add(line)) await out.flush();
      }
      if (!next) return total;
      rows = await next;
    }
  }

  private async writeJson(
    job: ExportRow,
    filter: LogFilter,
    out: Output,
    abandoned: () => boolean,
  ): Promise<number | undefined> {
    const { store } = this.options;
    const batchAfter = (rows: LogRow[]) => {
      const last = rows[rows.length - 1];
      return last && rows.length === BATCH ? { at: last.timestamp, id: last.id } : undefined;
    };
    out.add(jsonArray.head);
    let total = 0;
    let rows = await store.logs.list(filter, undefined, BATCH);
    for (;;) {
      if (abandoned()) return undefined;
      const after = batchAfter(rows);
      const next = after && store.logs.list(filter, after, BATCH);
      next?.catch(() => {});
      for (const row of rows) {
        const full = out.add(jsonArray.entry(row, total === 0, job.includeMetadata));
        total++;
        if (full) await out.flush();
      }
      if (!next) break;
      rows = await next;
    }
    out.add(jsonArray.tail);
    return total;
  }

  /** Deletes the files of exports past their expiry. */
  async sweep(now = new Date()): Promise<void> {
    try {
      for (const row of await this.options.store.exports.expiredFiles(now)) {
        await this.options.files.remove(row.id, row.format);
        await this.options.store.exports.markFileDeleted(row.id);
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'export sweep failed');
    }
  }
}
