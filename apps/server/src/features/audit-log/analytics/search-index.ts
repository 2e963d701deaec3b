import { randomUUID } from 'node:crypto';
import { Unavailable } from '../../../lib/errors.js';
import type { JobLogger } from '../../../lib/poll-loop.js';
import { pollLoop } from '../../../lib/poll-loop.js';
import type { AnalyticsStore } from '../../../storage/analytics/analytics-store.js';
import { RETENTION_EVENT } from '../retention/repository.js';
import type { FeedRepository, IndexChange, IndexState } from './feed-repository.js';
import { indexedEntry, type SealedRow } from './index-rows.js';
import {
  createTable,
  dropTable,
  highestSeq,
  type IndexTable,
  LIVE_TABLE,
  quoteName,
  REBUILD_TABLE,
  tableName,
} from './table.js';

/** The most seqs one insert covers. */
const FEED_BATCH = 5_000;
/** How often the feeder looks for newly sealed entries (the freshness bound is 2 s). */
const POLL_MS = 200;
const LEASE_SECONDS = 15;
/** Search is `lagging` when the sealed head is further ahead of it than this. */
export const LAG_BOUND_MS = 2_000;

export interface SearchIndexStatus {
  status: 'ok' | 'lagging' | 'rebuilding';
  indexedThroughSeq: number;
  sealedThroughSeq: number;
  indexedAt: Date | null;
  lagSeconds: number;
  rebuild: { startedAt: Date; indexedThroughSeq: number; targetSeq: number } | null;
  /** Whether search can answer (false while the live table is being filled again). */
  answering: boolean;
}

/** A statement on a table that is not there (ClickHouse's UNKNOWN_TABLE), maybe as a 503's cause. */
function isTableLost(error: unknown): boolean {
  for (const e of [error, (error as { cause?: unknown } | undefined)?.cause]) {
    const message = e instanceof Error ? e.message : '';
    if (/\bUNKNOWN_TABLE\b|Code: 60\b|Table \S+ does not exist/.test(message)) return true;
  }
  return false;
}

/** Rows of consecutive seqs in one month each: a block of one month is one part, written whole. */
function monthRuns(rows: readonly SealedRow[]): SealedRow[][] {
  const runs: SealedRow[][] = [];
  let month = -1;
  for (const row of rows) {
    const m = row.timestamp.getUTCFullYear() * 12 + row.timestamp.getUTCMonth();
    if (m !== month || runs.length === 0) runs.push([]);
    (runs[runs.length - 1] as SealedRow[]).push(row);
    month = m;
  }
  return runs;
}

/**
 * Keeps the analytics store's copy of the sealed log (docs/analytics-store.md): feeds sealed
 * entries in seq order, takes over redactions and removals queued in PostgreSQL, and rebuilds
 * the copy on request. One instance feeds at a time (a lease in PostgreSQL); every instance
 * reads the state it keeps there.
 *
 * At least once and idempotent: each insert is a run of consecutive seqs of one month (written
 * as one part, whole or not at all), the feeder resumes after the highest seq the table holds,
 * and each block carries a deduplication token naming its seqs, so a block sent again is
 * dropped by the engine.
 */
export class SearchIndex {
  private readonly holder = `feeder_${randomUUID()}`;
  private leased = false;
  /** The highest seq the live table holds, known once this instance holds the lease. */
  private through: number | undefined;
  private lastIdleWrite = 0;
  /** Whether this instance has found the table holding what the state says it held. */
  private lossChecked = false;
  private turns: Promise<unknown> = Promise.resolve();
  private readonly loop;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly feed: FeedRepository,
    private readonly logger: JobLogger,
  ) {
    this.loop = pollLoop({
      name: 'search index feeder',
      everyMs: POLL_MS,
      turn: () => this.turn(),
      logger,
    });
  }

  start(): void {
    this.loop.start();
  }

  kick(): void {
    this.loop.kick();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    if (this.leased) await this.feed.releaseLease(this.holder).catch(() => undefined);
    this.leased = false;
  }

  /** One turn of the feeder (one at a time: the loop's and `caughtUp`'s); true when more waits. */
  turn(): Promise<boolean> {
    const next = this.turns.then(() => this.feedTurn());
    this.turns = next.catch(() => undefined);
    return next;
  }

  private async feedTurn(): Promise<boolean> {
    try {
      return await this.feedTurnOnce();
    } catch (error) {
      // The table is gone (the server lost its data, or it was dropped): the next turn finds
      // the loss and fills it again from the start.
      if (isTableLost(error)) {
        this.through = undefined;
        this.lossChecked = false;
      }
      throw error;
    }
  }

  private async feedTurnOnce(): Promise<boolean> {
    this.leased = await this.feed.lease(this.holder, LEASE_SECONDS);
    if (!this.leased) {
      this.through = undefined;
      return false;
    }
    const state = await this.feed.state();
    if (this.through === undefined) this.through = await this.resumePoint(state);
    const changes = await this.applyChanges();
    const head = await this.feed.sealedHead();
    const to = Math.min(head, this.through + FEED_BATCH);
    if (to > this.through) {
      await this.insert(LIVE_TABLE, await this.feed.between(this.through + 1, to), 'live');
      this.through = to;
      await this.feed.indexed(to, new Date());
    } else if (Date.now() - this.lastIdleWrite >= 1000 || state.indexedThroughSeq !== to) {
      // Caught up: the state says so (and since when), at most once a second.
      this.lastIdleWrite = Date.now();
      await this.feed.indexed(this.through, new Date());
    }
    const rebuilding = await this.rebuildTurn(await this.feed.state());
    return changes || to < head || rebuilding;
  }

  /**
   * Before the first request: what `holdsWhatItHeld` does. A store that cannot be reached then
   * keeps only search and statistics from answering (503), not the service from starting: the
   * feeder does it on its first turn that reaches the store.
   */
  async prepare(): Promise<void> {
    try {
      await this.holdsWhatItHeld();
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      this.logger.error(
        { err: error },
        'search index: the search store is unreachable; search and statistics answer 503 until it answers',
      );
    }
  }

  /**
   * The table is there, and a table that holds less than the state says it did (its data was
   * lost), or nothing of a chain that has entries (never fed), is filled again from the start
   * while search says so (`rebuildLive`) rather than answering without what it lost. Returns the
   * highest seq the table holds.
   */
  private async holdsWhatItHeld(): Promise<number> {
    await createTable(this.store, LIVE_TABLE);
    const [state, held, head] = await Promise.all([
      this.feed.state(),
      highestSeq(this.store, LIVE_TABLE),
      this.feed.sealedHead(),
    ]);
    if (!state.rebuildLive && held < head && (held < state.indexedThroughSeq || held === 0)) {
      // A server's replica may answer from behind: a table that still holds entries is
      // rebuilt beside it there, never dropped on what one replica said.
      if (held > 0 && this.store.kind === 'server') {
        await this.feed.requestRebuild();
        this.lossChecked = true;
        return held;
      }
      if (held > 0) {
        await dropTable(this.store, LIVE_TABLE);
        await createTable(this.store, LIVE_TABLE);
      }
      await this.feed.rebuildStarted(head, true);
      await this.feed.indexed(0, new Date());
      this.lossChecked = true;
      return 0;
    }
    if (state.indexedAt === null) await this.feed.indexed(state.indexedThroughSeq, new Date());
    this.lossChecked = true;
    return held;
  }

  /** Where feeding goes on: after the highest seq the live table holds. */
  private async resumePoint(state: IndexState): Promise<number> {
    let held: number;
    if (this.lossChecked) {
      await createTable(this.store, LIVE_TABLE);
      held = await highestSeq(this.store, LIVE_TABLE);
    } else held = await this.holdsWhatItHeld();
    if (state.rebuildStartedAt && !state.rebuildLive) await createTable(this.store, REBUILD_TABLE);
    return held;
  }

  private async insert(table: IndexTable, rows: readonly SealedRow[], token: string) {
    for (const run of monthRuns(rows)) {
      const first = run[0] as SealedRow;
      const last = run[run.length - 1] as SealedRow;
      await this.store.insert(table, run.map(indexedEntry), `${token}:${first.seq}-${last.seq}`);
    }
  }

  /** Redactions and removals queued in PostgreSQL, applied in order; true when more wait. */
  private async applyChanges(): Promise<boolean> {
    const changes = await this.feed.changes(20);
    const state = changes.length > 0 ? await this.feed.state() : undefined;
    for (const change of changes) {
      await this.apply(change, LIVE_TABLE, this.through ?? 0);
      if (state?.rebuildStartedAt && !state.rebuildLive)
        await this.apply(change, REBUILD_TABLE, state.rebuildThroughSeq ?? 0);
      await this.feed.changeDone(change.id);
    }
    return changes.length === 20;
  }

  /** One change on one table that holds the seqs up to `through` (later ones arrive changed). */
  private async apply(change: IndexChange, table: IndexTable, through: number): Promise<void> {
    const target = tableName(this.store, table);
    if (change.kind === 'remove') {
      await this.store.command(
        `DELETE FROM ${target}
         WHERE timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
           AND timestamp < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
           AND seq <= {through:UInt64}
           AND NOT (event = {retention:String} AND origin = 'service')`,
        {
          from: change.fromTime?.getTime(),
          to: change.toTime?.getTime(),
          through: change.throughSeq,
          retention: RETENTION_EVENT,
        },
      );
      return;
    }
    const entries = (await this.feed.byEntryIds(change.entryIds)).filter((e) => e.seq <= through);
    if (entries.length === 0) return;
    const seqs = entries.map((entry) => entry.seq);
    await this.store.command(`DELETE FROM ${target} WHERE seq IN {seqs:Array(UInt64)}`, { seqs });
    const kept = entries.flatMap((entry) => (entry.row ? [indexedEntry(entry.row)] : []));
    // A token of this attempt: the DELETE above removed what an earlier attempt wrote, so these
    // rows must be written again; the same token (or the same rows without one) would be dropped
    // by the engine as a block it has already seen.
    await this.store.insert(table, kept, `change-${change.id}-${table}-${randomUUID()}`);
  }

  /**
   * A requested rebuild fills a second table from PostgreSQL while the live one answers, then
   * takes its place (an atomic exchange) once it has caught up with the live one.
   */
  private async rebuildTurn(state: IndexState): Promise<boolean> {
    const through = this.through ?? 0;
    if (state.rebuildLive) {
      if (through >= (state.rebuildTargetSeq ?? 0)) await this.feed.rebuildDone();
      return false;
    }
    if (state.rebuildRequestedAt && !state.rebuildStartedAt) {
      await dropTable(this.store, REBUILD_TABLE);
      await createTable(this.store, REBUILD_TABLE);
      await this.feed.rebuildStarted(through, false);
      return true;
    }
    if (!state.rebuildStartedAt) return false;
    const from = (state.rebuildThroughSeq ?? 0) + 1;
    const to = Math.min(through, from + FEED_BATCH - 1);
    if (to >= from) {
      await this.insert(REBUILD_TABLE, await this.feed.between(from, to), 'rebuild');
      await this.feed.rebuildProgress(to);
    }
    if (to < through) return true;
    await this.store.command(
      `EXCHANGE TABLES ${tableName(this.store, LIVE_TABLE)} AND ${quoteName(this.store.database)}.${quoteName(REBUILD_TABLE)}`,
    );
    // Done before the old table goes: a turn that failed after the exchange must not exchange
    // again (that would put the old table back). A table left over is dropped by the next rebuild.
    await this.feed.rebuildDone();
    await dropTable(this.store, REBUILD_TABLE);
    return false;
  }

  /**
   * Resolves once every change queued so far (a redaction just committed) is in the store, or
   * after `timeoutMs` (the store is down): search and statistics then answer 503 until it is
   * (`IndexFreshness`), so nothing redacted is shown either way.
   */
  async changesApplied(timeoutMs = 5_000): Promise<void> {
    const last = await this.feed.lastChange();
    if (last === 0) return;
    const deadline = Date.now() + timeoutMs;
    this.kick();
    while (!(await this.feed.appliedThrough(last)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      this.kick();
    }
  }

  /**
   * Feeds until the store holds every entry sealed when called, and every change queued by
   * then (tests, and whoever must read what was just sealed).
   */
  async caughtUp(): Promise<void> {
    const head = await this.feed.sealedHead();
    const last = await this.feed.lastChange();
    while (
      (await this.feed.state()).indexedThroughSeq < head ||
      !(await this.feed.appliedThrough(last))
    ) {
      if (!(await this.turn())) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Entries of `[from, to)` per UTC hour in the record and in the store, up to what it holds. */
  async compareHours(from: Date, to: Date) {
    const throughSeq = (await this.feed.state()).indexedThroughSeq;
    const [record, rows] = await Promise.all([
      this.feed.hourlyCounts(from, to, throughSeq),
      this.store.query<{ hour: string; n: string }>(
        `SELECT toString(toUnixTimestamp(toStartOfHour(timestamp)) * 1000) AS hour, toString(count()) AS n
         FROM ${tableName(this.store, LIVE_TABLE)}
         WHERE timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
           AND timestamp < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND seq <= {through:UInt64}
         GROUP BY hour`,
        { from: from.getTime(), to: to.getTime(), through: throughSeq },
      ),
    ]);
    const stored = new Map(rows.map((row) => [Number(row.hour), Number(row.n)]));
    const hours = [...new Set([...record.keys(), ...stored.keys()])]
      .sort((a, b) => a - b)
      .map((hour) => ({
        start: new Date(hour),
        record: record.get(hour) ?? 0,
        store: stored.get(hour) ?? 0,
      }));
    return {
      throughSeq,
      hours,
      mismatchedHours: hours.filter((hour) => hour.record !== hour.store).length,
    };
  }

  async requestRebuild(): Promise<void> {
    await this.feed.requestRebuild();
    this.kick();
  }

  async status(): Promise<SearchIndexStatus> {
    const [state, head] = await Promise.all([this.feed.state(), this.feed.sealedHead()]);
    const behindMs =
      state.indexedThroughSeq >= head || !state.indexedAt
        ? 0
        : Date.now() - state.indexedAt.getTime();
    const rebuilding = state.rebuildStartedAt !== null || state.rebuildRequestedAt !== null;
    return {
      status: rebuilding ? 'rebuilding' : behindMs > LAG_BOUND_MS ? 'lagging' : 'ok',
      indexedThroughSeq: state.indexedThroughSeq,
      sealedThroughSeq: head,
      indexedAt: state.indexedAt,
      lagSeconds: Math.round(behindMs / 100) / 10,
      rebuild: state.rebuildStartedAt
        ? {
            startedAt: state.rebuildStartedAt,
            indexedThroughSeq: state.rebuildLive
              ? state.indexedThroughSeq
              : (state.rebuildThroughSeq ?? 0),
            targetSeq: state.rebuildLive ? (state.rebuildTargetSeq ?? 0) : state.indexedThroughSeq,
          }
        : state.rebuildRequestedAt
          ? // Asked for, not yet picked up by the feeder: it starts from nothing.
            {
              startedAt: state.rebuildRequestedAt,
              indexedThroughSeq: 0,
              targetSeq: state.indexedThroughSeq,
            }
          : null,
      answering: !state.rebuildLive,
    };
  }
}
