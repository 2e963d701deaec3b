import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ulid } from '../../../lib/ids.js';
import type { DomainCounters } from '../../../metrics.js';
import type { Store } from '../../../storage/repositories.js';
import type { LogRow } from '../repository.js';
import { exportFilePath } from './files.js';
import { type ExportFormat, encoderFor } from './formats.js';
import type { ExportRow } from './repository.js';

const BATCH = 2000;
const HEARTBEAT_MS = 5_000;
/** A claim not renewed for this long belongs to a dead instance and is taken over. */
const STALE_CLAIM_MS = 15_000;

export interface ExportWorkerOptions {
  store: Store;
  dataDir: string;
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
 * its entries in keyset batches to `<id>.<format>.partial`, renames it into place, then
 * marks it completed. Also deletes the files of expired exports.
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
    const { store, dataDir, logger } = this.options;
    const format = job.format as ExportFormat;
    const path = exportFilePath(dataDir, job.id, format);
    const partial = `${path}.partial`;
    let lost = false;
    const heartbeat = setInterval(() => {
      store.exports
        .heartbeat(job.id, this.instanceId)
        .then((mine) => {
          lost ||= !mine;
        })
        .catch(() => {});
    }, HEARTBEAT_MS);
    try {
      await mkdir(join(dataDir, 'exports'), { recursive: true, mode: 0o700 });
      const total = await this.writeFile(job, format, partial, () => lost || this.stopped);
      if (total === undefined) {
        await rm(partial, { force: true });
        return;
      }
      await rename(partial, path);
      const completedAt = new Date();
      const { size } = await stat(path);
      await store.exports.finish(job.id, this.instanceId, {
        status: 'completed',
        totalRecords: total,
        fileSizeBytes: BigInt(size),
        completedAt,
        expiresAt: new Date(completedAt.getTime() + this.options.ttlSeconds * 1000),
      });
      this.options.counters?.exportFinished('completed');
      logger.info(
        { exportId: job.id, totalRecords: total, fileSizeBytes: size },
        'export completed',
      );
    } catch (error) {
      logger.error({ err: error, exportId: job.id }, 'export failed');
      this.options.counters?.exportFinished('failed');
      await rm(partial, { force: true }).catch(() => {});
      await store.exports
        .finish(job.id, this.instanceId, {
          status: 'failed',
          error: 'The export could not be written; create a new one.',
        })
        .catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Streams the entries; undefined when it had to give up (stopping, or claim lost). */
  private async writeFile(
    job: ExportRow,
    format: ExportFormat,
    path: string,
    abandoned: () => boolean,
  ): Promise<number | undefined> {
    const encoder = encoderFor(format, job.includeMetadata);
    const out = createWriteStream(path, { mode: 0o600 });
    const write = async (chunk: string) => {
      if (!out.write(chunk)) await once(out, 'drain');
    };
    let total = 0;
    try {
      await write(encoder.head);
      const filter = {
        from: job.from,
        to: job.to,
        events: job.events.length > 0 ? job.events : undefined,
      };
      const batchAfter = (rows: LogRow[]) => {
        const last = rows[rows.length - 1];
        return last && rows.length === BATCH ? { at: last.timestamp, id: last.id } : undefined;
      };
      let rows = await this.options.store.logs.list(filter, undefined, BATCH);
      for (;;) {
        if (abandoned()) return undefined;
        // The database reads the next batch while this one is encoded and written.
        const after = batchAfter(rows);
        const next = after && this.options.store.logs.list(filter, after, BATCH);
        next?.catch(() => {});
        let chunk = '';
        for (const row of rows) {
          chunk += encoder.entry(row, total === 0);
          total++;
        }
        await write(chunk);
        if (!next) break;
        rows = await next;
      }
      await write(encoder.tail);
      out.end();
      await once(out, 'finish');
      return total;
    } finally {
      if (!out.writableFinished) out.destroy();
    }
  }

  /** Deletes the files of exports past their expiry. */
  async sweep(now = new Date()): Promise<void> {
    try {
      for (const row of await this.options.store.exports.expiredFiles(now)) {
        await rm(exportFilePath(this.options.dataDir, row.id, row.format), { force: true });
        await this.options.store.exports.markFileDeleted(row.id);
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'export sweep failed');
    }
  }
}
