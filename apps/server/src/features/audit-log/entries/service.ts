import type { components } from '@secadmin/api-types';
import { type Cursors, listScope, type Page } from '../../../lib/cursor.js';
import { invalid, NotFound } from '../../../lib/errors.js';
import { idPattern, newId } from '../../../lib/ids.js';
import type { Job } from '../../../lib/poll-loop.js';
import { mapInSlices } from '../../../lib/slices.js';
import { INVALID_INSTANT, parseInstant } from '../../../lib/time.js';
import type { Store } from '../../../storage/store.js';
import type { LogOrigin } from '../origin.js';
import type { LogPartitions } from '../partitions/service.js';
import { parseRange } from '../range.js';
import type { Scan } from '../scans.js';
import { insertInChunks } from './insert-in-chunks.js';
import type { EntriesRepository } from './repository.js';
import type { LogFilter, LogRow, NewLogRow } from './sql.js';

type LogEntryInput = components['schemas']['LogEntryInput'];

const LOG_ID = idPattern('log');
const METADATA_LIMIT_BYTES = 16 * 1024;
/** How far ahead of the server's clock an ingested timestamp may lie (clock skew). */
const MAX_FUTURE_MS = 5 * 60 * 1000;

export interface LogQuery {
  limit: number;
  cursor?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  events?: string[] | undefined;
  actor?: string | undefined;
  result?: string | undefined;
  origin?: LogOrigin | undefined;
}

/** An ingested entry: who sent it and when is recorded by the server, never by the input. */
function toRow(input: LogEntryInput, index: number, now: Date, keyId: string): NewLogRow {
  const metadata = input.metadata ?? {};
  if (Buffer.byteLength(JSON.stringify(metadata)) > METADATA_LIMIT_BYTES) {
    throw invalid(`entries[${index}].metadata`, 'must be at most 16 KiB when serialized');
  }
  let timestamp = now;
  if (input.timestamp !== undefined) {
    const parsed = parseInstant(input.timestamp);
    if (!parsed) throw invalid(`entries[${index}].timestamp`, INVALID_INSTANT);
    if (parsed.getTime() < 0)
      throw invalid(`entries[${index}].timestamp`, 'must be at or after 1970-01-01T00:00:00Z');
    if (parsed.getTime() - now.getTime() > MAX_FUTURE_MS)
      throw invalid(`entries[${index}].timestamp`, 'must be at most 5 minutes in the future');
    timestamp = parsed;
  }
  const location = input.context?.location;
  return {
    id: newId('log', timestamp.getTime()),
    timestamp,
    event: input.event,
    actorId: input.actor.id ?? null,
    actorEmail: input.actor.email ?? null,
    actorType: input.actor.type,
    targetId: input.target?.id ?? null,
    targetType: input.target?.type ?? null,
    ip: input.context?.ip ?? null,
    userAgent: input.context?.userAgent ?? null,
    city: location?.city ?? null,
    country: location?.country ?? null,
    region: location?.region ?? null,
    lat: location?.coordinates?.lat ?? null,
    lng: location?.coordinates?.lng ?? null,
    result: input.result,
    traceId: input.traceId ?? null,
    metadata: metadata as object,
    origin: 'api',
    ingestedBy: keyId,
    receivedAt: now,
  };
}

export interface LogsServiceOptions {
  cursors: Cursors;
  /** Woken when entries were written: they need not wait for its next poll. */
  sealer: Required<Pick<Job, 'kick'>> & { caughtUp(maxWaitMs: number): Promise<boolean> };
  /**
   * The longest an ingest waits for a sealer that is a batch or more behind: then it writes
   * anyway (nothing is refused for the chain's sake; the lag shows in the seal-lag metric).
   * 0: ingest never waits.
   */
  sealWaitMs: number;
  /** Creates the partitions of a backfill's months before it is written. */
  partitions: Pick<LogPartitions, 'ensureFor'>;
  counters?: {
    ingested(entries: number): void;
    /** An ingest waited this long for the sealer. */
    ingestWaited(seconds: number): void;
  };
  /** A filter that matches few entries walks many: list pages take turns with other scans. */
  scan: Scan;
}

export class LogsService {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly entries: Pick<EntriesRepository, 'prepare' | 'write' | 'find'>,
    /** Lists read here: they may lag the writes (a read replica). */
    private readonly listed: Pick<EntriesRepository, 'list'>,
    private readonly options: LogsServiceOptions,
  ) {}

  /**
   * Resolves once this instance's sealer is less than a batch behind, or after `sealWaitMs`:
   * an ingest waits here, outside any transaction, before it writes (see `Sealer.caughtUp`).
   */
  async sealerCaughtUp(): Promise<void> {
    if (this.options.sealWaitMs <= 0) return;
    const started = performance.now();
    if (await this.options.sealer.caughtUp(this.options.sealWaitMs))
      this.options.counters?.ingestWaited((performance.now() - started) / 1000);
  }

  /** All entries in one transaction (in statements of bounded size); acknowledged only once committed. */
  async ingest(
    entries: LogEntryInput[],
    keyId: string,
  ): Promise<{ id: string; timestamp: Date }[]> {
    const now = new Date();
    let index = 0;
    const rows = await mapInSlices(entries, (entry) => toRow(entry, index++, now, keyId));
    // Committed on its own: an empty partition left by a batch that then fails is harmless.
    await this.options.partitions.ensureFor(
      rows.map((row) => row.timestamp as Date),
      now,
    );
    await insertInChunks(this.store, this.entries, rows);
    this.options.counters?.ingested(rows.length);
    this.options.sealer.kick();
    return rows.map((row) => ({ id: row.id as string, timestamp: row.timestamp as Date }));
  }

  async get(id: string): Promise<LogRow> {
    const entry = await this.entries.find(id);
    if (!entry) throw new NotFound('log entry');
    return entry;
  }

  /** `caller`: the principal asking, whose turns at scans are bounded (`Scan`). */
  async list(query: LogQuery, caller: string): Promise<Page<LogRow>> {
    const { cursor, limit, ...filters } = query;
    const scope = listScope('logs', filters);
    const after = this.options.cursors.decode(scope, LOG_ID, cursor);
    const filter: LogFilter = {
      ...parseRange(query.from, query.to),
      events: query.events,
      actorId: query.actor,
      result: query.result,
      origin: query.origin,
    };
    const rows = await this.options.scan(caller, () =>
      this.listed.list(filter, after, query.limit + 1),
    );
    return this.options.cursors.page(rows, limit, scope, (row) => row.timestamp);
  }
}
