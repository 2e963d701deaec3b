import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../../lib/actor.js';
import { Forbidden, Gone, invalid, NotFound, Throttled } from '../../../lib/errors.js';
import { idText, newId } from '../../../lib/ids.js';
import type { Job } from '../../../lib/poll-loop.js';
import type { Store } from '../../../storage/store.js';
import type { IndexFreshness } from '../analytics/freshness.js';
import type { SearchStore } from '../analytics/search-store.js';
import type { AuditWriter } from '../audit-writer.js';
import type { EntriesRepository } from '../entries/repository.js';
import { parseRange } from '../range.js';
import { parseSearchQuery } from '../search/query.js';
import { signDownload, verifyDownload } from './download-token.js';
import type { ExportFiles } from './files.js';
import type { ExportRow } from './model.js';
import type { ExportsRepository } from './repository.js';

type ExportRequest = components['schemas']['ExportRequest'];
type ExportView = components['schemas']['Export'];

/** More exports in progress than this for one key is a 429: each one is a full scan. */
const MAX_PROCESSING_EXPORTS_PER_KEY = 5;
const EXPORT_RETRY_AFTER_SECONDS = 5;
/** `<export id>.<format>`: the name of a download. */
const EXPORT_FILE = new RegExp(`^(${idText('exp')})\\.(json|csv)$`);

export interface ExportsServiceOptions {
  /** What a search export counts its hits with. */
  search: { store: Pick<SearchStore, 'count'>; freshness: Pick<IndexFreshness, 'answering'> };
  secret: string;
  files: ExportFiles;
  downloadUrl: string;
}

export class ExportsService {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly exports: Pick<
      ExportsRepository,
      'lockOfKey' | 'countProcessing' | 'insert' | 'find' | 'markFileDeleted'
    >,
    private readonly entries: Pick<EntriesRepository, 'count'>,
    private readonly audit: Pick<AuditWriter, 'record'>,
    /** Woken when an export was created: it need not wait for its next poll. */
    private readonly worker: Required<Pick<Job, 'kick'>>,
    private readonly options: ExportsServiceOptions,
  ) {}

  async create(actor: RequestActor, input: ExportRequest): Promise<ExportRow> {
    const range = parseRange(input.from, input.to);
    if (!range.from || !range.to) throw invalid('from', 'from and to are required');
    const events = input.events ?? [];
    const within = {
      from: range.from,
      to: range.to,
      events: events.length > 0 ? events : undefined,
    };
    // A search export: exactly the hits of the entries the store holds now (its own
    // `logs.export.created`, written below, is sealed later and so is never one of them).
    let throughSeq: number | undefined;
    let estimatedRecords: number;
    if (input.query !== undefined) {
      const query = parseSearchQuery(input.query);
      throughSeq = (await this.options.search.freshness.answering()).indexedThroughSeq;
      estimatedRecords = await this.options.search.store.count(query, { ...within, throughSeq });
    } else estimatedRecords = await this.entries.count(within);
    const row = await this.store.transaction(async () => {
      // Serializes this key's creations, so the limit holds under concurrent requests.
      await this.exports.lockOfKey(actor.keyId);
      if ((await this.exports.countProcessing(actor.keyId)) >= MAX_PROCESSING_EXPORTS_PER_KEY) {
        throw new Throttled(
          `At most ${MAX_PROCESSING_EXPORTS_PER_KEY} exports per key may be processing at once.`,
          EXPORT_RETRY_AFTER_SECONDS,
        );
      }
      const created = await this.exports.insert({
        id: newId('exp'),
        status: 'processing',
        format: input.format ?? 'json',
        from: range.from as Date,
        to: range.to as Date,
        events,
        query: input.query ?? null,
        throughSeq: throughSeq === undefined ? null : BigInt(throughSeq),
        includeMetadata: input.includeMetadata ?? true,
        estimatedRecords,
        keyId: actor.keyId,
        createdAt: new Date(),
      });
      await this.audit.record(actor, {
        event: 'logs.export.created',
        target: { id: created.id, type: 'export' },
      });
      return created;
    });
    this.worker.kick();
    return row;
  }

  async get(id: string): Promise<ExportRow> {
    const row = await this.exports.find(id);
    if (!row) throw new NotFound('export');
    return row;
  }

  downloadUrl(row: ExportRow): string | undefined {
    if (row.status !== 'completed' || !row.expiresAt) return undefined;
    const token = signDownload(this.options.secret, row.id, row.expiresAt);
    return `${this.options.downloadUrl}/${row.id}.${row.format}?token=${token}`;
  }

  view(row: ExportRow): ExportView {
    const view: ExportView = {
      exportId: row.id,
      status: row.status as ExportView['status'],
      format: row.format as ExportView['format'],
      estimatedRecords: row.estimatedRecords,
      createdAt: row.createdAt.toISOString(),
    };
    if (row.status === 'completed' && row.completedAt && row.expiresAt) {
      view.totalRecords = row.totalRecords ?? 0;
      view.fileSizeBytes = Number(row.fileSizeBytes ?? 0);
      view.downloadUrl = this.downloadUrl(row) as string;
      view.completedAt = row.completedAt.toISOString();
      view.expiresAt = row.expiresAt.toISOString();
    }
    if (row.status === 'failed' && row.error) view.error = row.error;
    return view;
  }

  /**
   * The file behind a download URL. Unknown file → 404; wrong token → 403; past its
   * expiry → 410, and the file is deleted then and there.
   */
  async resolveDownload(
    file: string,
    token: string,
  ): Promise<{ content: AsyncIterable<Buffer>; row: ExportRow; size: number }> {
    const match = EXPORT_FILE.exec(file);
    const row = match ? await this.exports.find(match[1] as string) : null;
    if (!match || !row || row.status !== 'completed' || row.format !== match[2] || !row.expiresAt) {
      throw new NotFound('export file', 'No export file with this name.');
    }
    if (!verifyDownload(this.options.secret, row.id, row.expiresAt, token)) {
      throw new Forbidden('The download token is invalid.');
    }
    const { files } = this.options;
    if (row.expiresAt <= new Date() || row.fileDeletedAt) {
      await files.remove(row.id, row.format);
      await this.exports.markFileDeleted(row.id);
      throw new Gone('This download link has expired; create a new export.');
    }
    const content = await files.read(row.id, row.format);
    if (!content) throw new Gone('This export file is no longer available; create a new export.');
    return { content, row, size: Number(row.fileSizeBytes ?? 0) };
  }
}
