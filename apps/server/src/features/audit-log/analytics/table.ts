import type { AnalyticsStore } from '../../../storage/analytics/analytics-store.js';

/** The table search and statistics read, and the one a rebuild fills before taking its place. */
export const LIVE_TABLE = 'log_entries';
export const REBUILD_TABLE = 'log_entries_rebuild';
export type IndexTable = typeof LIVE_TABLE | typeof REBUILD_TABLE;

/**
 * A sealed entry as the store keeps it: the fields search qualifiers and statistics read, and
 * `words`, the entry's searchable text as its lowercase words, a field's joined by single spaces
 * and fields by two (with a space before the first and after the last, so that ` a b ` finds the
 * phrase "a b" within a field). Absent
 * values are empty strings: a missing field matches no qualifier and counts in no facet.
 */
export interface IndexedEntry {
  seq: number;
  id: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  event: string;
  result: string;
  origin: string;
  actor_id: string;
  actor_type: string;
  actor_email: string;
  target_id: string;
  target_type: string;
  ip: string;
  country: string;
  words: string;
  /** Exact tokens for the text index on `keys` (`entryKeys`): qualifier values and phrases. */
  keys: string[];
}

/**
 * Why this shape (docs/analytics-store.md): months as partitions, as retention removes whole
 * months; the ordering key is the order hits are listed in (time, then id), so a page of hits
 * is read from the end of the table and stops at its limit; `LowCardinality` for the fields
 * with few values; text (inverted) indexes on `words` and on `keys`, so a word, a qualifier's
 * value or a short phrase is found from its posting list and counted exactly without reading
 * the entries, however many hold it; an aggregate projection, `hours`, counting each hour's
 * entries by the fields with few values, so statistics over whole hours read a few rows per
 * hour (the engine keeps it exact: deletes rebuild it, `lightweight_mutation_projection_mode`).
 */
function columns(): string {
  return `(
    seq UInt64 CODEC(Delta, ZSTD(1)),
    id String,
    timestamp DateTime64(3, 'UTC') CODEC(DoubleDelta, LZ4),
    event LowCardinality(String),
    result LowCardinality(String),
    origin LowCardinality(String),
    actor_id String,
    actor_type LowCardinality(String),
    actor_email String,
    target_id String,
    target_type LowCardinality(String),
    ip String,
    country LowCardinality(String),
    words String CODEC(ZSTD(1)),
    keys Array(String) CODEC(ZSTD(1)),
    INDEX words_index words TYPE text(tokenizer = splitByNonAlpha),
    INDEX keys_index keys TYPE text(tokenizer = array),
    PROJECTION hours (
      SELECT toStartOfHour(timestamp), event, result, origin, actor_type, target_type, country, count()
      GROUP BY toStartOfHour(timestamp), event, result, origin, actor_type, target_type, country
    )
  )`;
}

/** `ON CLUSTER <name>` for a cluster's DDL, nothing otherwise. */
export function onCluster(store: Pick<AnalyticsStore, 'cluster'>): string {
  return store.cluster ? ` ON CLUSTER ${quoteName(store.cluster)}` : '';
}

/** A database, table or cluster name as an identifier (never taken from a request). */
export function quoteName(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

export function tableName(store: Pick<AnalyticsStore, 'database'>, table: IndexTable): string {
  return `${quoteName(store.database)}.${quoteName(table)}`;
}

/** Creates the database and the table if they are not there. */
export async function createTable(store: AnalyticsStore, table: IndexTable): Promise<void> {
  await store.command(
    `CREATE DATABASE IF NOT EXISTS ${quoteName(store.database)}${onCluster(store)}`,
  );
  const engine = store.cluster ? 'ReplicatedMergeTree' : 'MergeTree';
  await store.command(`
    CREATE TABLE IF NOT EXISTS ${tableName(store, table)}${onCluster(store)} ${columns()}
    ENGINE = ${engine}
    PARTITION BY toYYYYMM(timestamp)
    ORDER BY (timestamp, id)
    SETTINGS non_replicated_deduplication_window = 1000, lightweight_mutation_projection_mode = 'rebuild'`);
}

export async function dropTable(store: AnalyticsStore, table: IndexTable): Promise<void> {
  await store.command(`DROP TABLE IF EXISTS ${tableName(store, table)}${onCluster(store)} SYNC`);
}

/** The highest seq the table holds (0 when empty): every insert holds a run of seqs in order. */
export async function highestSeq(store: AnalyticsStore, table: IndexTable): Promise<number> {
  const rows = await store.query<{ seq: string }>(
    `SELECT max(seq) AS seq FROM ${tableName(store, table)}`,
  );
  return Number(rows[0]?.seq ?? 0);
}
