import type { Connection } from '../../storage/connection.js';
import type { DeliveryRow, StreamError, StreamFilter, StreamRow } from './model.js';

const COLUMNS = `id, name, destination_type AS "destinationType", url, splunk_index AS "splunkIndex",
  sourcetype, credential, previous_credential AS "previousCredential",
  previous_credential_expires_at AS "previousCredentialExpiresAt", filter, status,
  batch_size AS "batchSize", delivered_through_seq::float8 AS "deliveredThroughSeq",
  progress_version AS "progressVersion", last_delivery_at AS "lastDeliveryAt",
  last_error AS "lastError", consecutive_failures AS "consecutiveFailures", attempt,
  pending_to_seq::float8 AS "pendingToSeq", range_start_seq::float8 AS "rangeStartSeq",
  failing_since AS "failingSince", next_attempt_at AS "nextAttemptAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A delivery attempt's result, written with the stream's new state. */
export interface AttemptResult {
  fromSeq: number;
  toSeq: number;
  entries: number;
  httpStatus: number | undefined;
  durationMs: number;
  error: string | undefined;
}

export type StreamChange = Partial<{
  name: string;
  url: string;
  filter: StreamFilter;
  batchSize: number;
  status: StreamRow['status'];
}>;

const KEPT_DELIVERIES = 100;

/** The log_streams and log_stream_deliveries tables. */
export class StreamsRepository {
  constructor(private readonly c: Connection) {}

  async insert(
    row: Omit<
      StreamRow,
      | 'progressVersion'
      | 'pendingToSeq'
      | 'rangeStartSeq'
      | 'lastDeliveryAt'
      | 'lastError'
      | 'consecutiveFailures'
      | 'attempt'
      | 'failingSince'
      | 'nextAttemptAt'
      | 'previousCredential'
      | 'previousCredentialExpiresAt'
    >,
  ): Promise<StreamRow> {
    const [created] = await this.c.sql<StreamRow>(
      `INSERT INTO log_streams (id, name, destination_type, url, splunk_index, sourcetype, credential,
         filter, status, batch_size, delivered_through_seq, range_start_seq, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14) RETURNING ${COLUMNS}`,
      [
        row.id,
        row.name,
        row.destinationType,
        row.url,
        row.splunkIndex,
        row.sourcetype,
        row.credential,
        JSON.stringify(row.filter),
        row.status,
        row.batchSize,
        row.deliveredThroughSeq,
        row.deliveredThroughSeq + 1,
        row.createdAt,
        row.updatedAt,
      ],
    );
    return created as StreamRow;
  }

  async find(id: string): Promise<StreamRow | null> {
    const [row] = await this.c.sql<StreamRow>(`SELECT ${COLUMNS} FROM log_streams WHERE id = $1`, [
      id,
    ]);
    return row ?? null;
  }

  async findForUpdate(id: string): Promise<StreamRow | null> {
    const [row] = await this.c.sql<StreamRow>(
      `SELECT ${COLUMNS} FROM log_streams WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return row ?? null;
  }

  list(after: { at: Date; id: string } | undefined, take: number): Promise<StreamRow[]> {
    return this.c.sql<StreamRow>(
      `SELECT ${COLUMNS} FROM log_streams
       WHERE $1::timestamptz IS NULL OR (created_at, id) > ($1::timestamptz, $2::text)
       ORDER BY created_at, id LIMIT $3`,
      [after?.at ?? null, after?.id ?? null, take],
    );
  }

  async update(id: string, change: StreamChange, now: Date): Promise<StreamRow> {
    const resuming = change.status === 'active';
    const [row] = await this.c.sql<StreamRow>(
      `UPDATE log_streams SET
         name = coalesce($2, name), url = coalesce($3, url),
         filter = coalesce($4::jsonb, filter), batch_size = coalesce($5, batch_size),
         status = coalesce($6, status),
         consecutive_failures = CASE WHEN $7 THEN 0 ELSE consecutive_failures END,
         failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
         next_attempt_at = CASE WHEN $7 THEN NULL ELSE next_attempt_at END,
         attempt = CASE WHEN $7 THEN 0 ELSE attempt END,
         updated_at = $8
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        change.name ?? null,
        change.url ?? null,
        change.filter ? JSON.stringify(change.filter) : null,
        change.batchSize ?? null,
        change.status ?? null,
        resuming,
        now,
      ],
    );
    return row as StreamRow;
  }

  /** Delivery goes on from `fromSeq`: the delivering instance notices by `progress_version`. */
  async replay(id: string, fromSeq: number, now: Date): Promise<StreamRow> {
    const [row] = await this.c.sql<StreamRow>(
      `UPDATE log_streams SET delivered_through_seq = $2::bigint, progress_version = progress_version + 1,
         range_start_seq = $2::bigint + 1, attempt = 0, pending_to_seq = NULL, next_attempt_at = NULL, updated_at = $3
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, fromSeq - 1, now],
    );
    return row as StreamRow;
  }

  async rotate(
    id: string,
    credential: string,
    previous: string,
    until: Date,
    now: Date,
  ): Promise<void> {
    await this.c.sql(
      `UPDATE log_streams SET credential = $2, previous_credential = $3,
         previous_credential_expires_at = $4, updated_at = $5 WHERE id = $1`,
      [id, credential, previous, until, now],
    );
  }

  async delete(id: string): Promise<void> {
    await this.c.sql('DELETE FROM log_streams WHERE id = $1', [id]);
  }

  deliveries(id: string): Promise<DeliveryRow[]> {
    return this.c.sql<DeliveryRow>(
      `SELECT from_seq::float8 AS "fromSeq", to_seq::float8 AS "toSeq", entries, attempt,
         http_status AS "httpStatus", duration_ms AS "durationMs", error, at
       FROM log_stream_deliveries WHERE stream_id = $1 ORDER BY id DESC LIMIT ${KEPT_DELIVERIES}`,
      [id],
    );
  }

  /**
   * Takes the lease of every stream that should deliver and that no live instance holds, and
   * renews this owner's leases once half their time has passed (not at every poll: a write
   * per stream per poll would be most of the deliverer's load when idle); returns the ids
   * this owner holds now.
   */
  async lease(owner: string, leaseMs: number): Promise<string[]> {
    const rows = await this.c.sql<{ id: string }>(
      `WITH taken AS (
         UPDATE log_streams SET lease_owner = $1,
           lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
         WHERE status IN ('active', 'failing')
           AND (lease_owner IS NULL OR lease_expires_at < now()
             OR (lease_owner = $1 AND lease_expires_at < now() + make_interval(secs => $2::float8 / 2000)))
         RETURNING id)
       SELECT id FROM taken
       UNION SELECT id FROM log_streams
       WHERE lease_owner = $1 AND lease_expires_at >= now() AND status IN ('active', 'failing')`,
      [owner, leaseMs],
    );
    return rows.map((r) => r.id);
  }

  /** Lets go of this instance's leases (shutdown): another instance takes them at once. */
  async release(owner: string): Promise<void> {
    await this.c.sql(
      'UPDATE log_streams SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1',
      [owner],
    );
  }

  /** The stream as its lease holder sees it, or null when the lease is no longer this owner's. */
  async leased(id: string, owner: string): Promise<StreamRow | null> {
    const [row] = await this.c.sql<StreamRow>(
      `SELECT ${COLUMNS} FROM log_streams WHERE id = $1 AND lease_owner = $2
         AND lease_expires_at > now() AND status IN ('active', 'failing')`,
      [id, owner],
    );
    return row ?? null;
  }

  /**
   * Progress after a 2xx (or over a stretch with no matching entry): only if this owner still
   * holds the lease and no replay moved the stream meanwhile. False when nothing was written.
   */
  async advance(
    stream: StreamRow,
    owner: string,
    toSeq: number,
    attempt: AttemptResult | undefined,
    now: Date,
  ): Promise<boolean> {
    const rows = await this.c.sql<{ id: string }>(
      `UPDATE log_streams SET delivered_through_seq = $4::bigint,
         range_start_seq = CASE WHEN $5 THEN $4::bigint + 1 ELSE range_start_seq END,
         last_delivery_at = CASE WHEN $5 THEN $6 ELSE last_delivery_at END,
         consecutive_failures = CASE WHEN $5 THEN 0 ELSE consecutive_failures END,
         failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END,
         status = CASE WHEN $5 AND status = 'failing' THEN 'active' ELSE status END,
         attempt = 0, next_attempt_at = NULL, pending_to_seq = NULL
       WHERE id = $1 AND lease_owner = $2 AND progress_version = $3
       RETURNING id`,
      [stream.id, owner, stream.progressVersion, toSeq, attempt !== undefined, now],
    );
    if (rows.length === 0) return false;
    if (attempt) await this.addDelivery(stream.id, stream.attempt + 1, attempt, now);
    return true;
  }

  /** Fixes the range about to be sent, before it is sent. False: lease or progress moved. */
  async holdRange(stream: StreamRow, owner: string, toSeq: number): Promise<boolean> {
    const rows = await this.c.sql<{ id: string }>(
      `UPDATE log_streams SET pending_to_seq = $4
       WHERE id = $1 AND lease_owner = $2 AND progress_version = $3 RETURNING id`,
      [stream.id, owner, stream.progressVersion, toSeq],
    );
    return rows.length > 0;
  }

  /** A failed attempt: the stream's health, and when to try the same batch again. */
  async failed(
    stream: StreamRow,
    owner: string,
    attempt: AttemptResult,
    change: { status: StreamRow['status']; error: StreamError; nextAttemptAt: Date },
    now: Date,
  ): Promise<boolean> {
    const rows = await this.c.sql<{ id: string }>(
      `UPDATE log_streams SET consecutive_failures = consecutive_failures + 1,
         attempt = attempt + 1, failing_since = coalesce(failing_since, $4),
         last_error = $5::jsonb, status = $6, next_attempt_at = $7
       WHERE id = $1 AND lease_owner = $2 AND progress_version = $3 RETURNING id`,
      [
        stream.id,
        owner,
        stream.progressVersion,
        now,
        JSON.stringify(change.error),
        change.status,
        change.nextAttemptAt,
      ],
    );
    if (rows.length === 0) return false;
    await this.addDelivery(stream.id, stream.attempt + 1, attempt, now);
    return true;
  }

  private async addDelivery(streamId: string, attempt: number, result: AttemptResult, at: Date) {
    await this.c.sql(
      `INSERT INTO log_stream_deliveries (stream_id, from_seq, to_seq, entries, attempt, http_status, duration_ms, error, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        streamId,
        result.fromSeq,
        result.toSeq,
        result.entries,
        attempt,
        result.httpStatus ?? null,
        result.durationMs,
        result.error ?? null,
        at,
      ],
    );
    // Only the newest attempts are kept.
    await this.c.sql(
      `DELETE FROM log_stream_deliveries WHERE stream_id = $1 AND id <= (
         SELECT id FROM log_stream_deliveries WHERE stream_id = $1
         ORDER BY id DESC OFFSET ${KEPT_DELIVERIES} LIMIT 1)`,
      [streamId],
    );
  }

  /** The lowest seq not yet delivered by an active or failing stream (retention keeps it). */
  async oldestUndelivered(): Promise<number | undefined> {
    const [row] = await this.c.sql<{ seq: number | null }>(
      `SELECT (min(delivered_through_seq) + 1)::float8 AS seq FROM log_streams
       WHERE status IN ('active', 'failing')`,
    );
    return row?.seq ?? undefined;
  }
}
