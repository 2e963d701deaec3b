import { Prisma } from '@secadmin/db';
import type { Connection } from '../../../storage/connection.js';
import { filterSql, type LogFilter } from '../entries/sql.js';
import { PLAIN_CELLS_SQL } from './csv-sql.js';
import type { CsvCellsRow, ExportRow } from './model.js';

/** The exports, and their files' pieces when the files are kept in PostgreSQL (`export_chunks`). */
export class ExportsRepository {
  constructor(private readonly c: Connection) {}

  insert(data: Prisma.ExportCreateInput): Promise<ExportRow> {
    return this.c.db.export.create({ data });
  }

  find(id: string): Promise<ExportRow | null> {
    return this.c.db.export.findUnique({ where: { id } });
  }

  /** A transaction-scoped lock on one key's exports. */
  async lockOfKey(keyId: string): Promise<void> {
    await this.c.sql('SELECT pg_advisory_xact_lock(hashtext($1))::text', [keyId]);
  }

  countProcessing(keyId: string): Promise<number> {
    return this.c.db.export.count({ where: { keyId, status: 'processing' } });
  }

  /**
   * Claims the oldest processing export that nobody has claimed, or whose claimant has
   * been silent since `staleBefore`. SKIP LOCKED: two instances never claim the same one.
   */
  async claim(instanceId: string, staleBefore: Date): Promise<ExportRow | null> {
    const sql = Prisma.sql`
      UPDATE exports SET claimed_by = ${instanceId}, heartbeat_at = now()
      WHERE id = (
        SELECT id FROM exports
        WHERE status = 'processing' AND (heartbeat_at IS NULL OR heartbeat_at < ${staleBefore})
        ORDER BY created_at, id
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    const rows = await this.c.sql<{ id: string }>(sql.text, sql.values);
    const id = rows[0]?.id;
    return id === undefined ? null : this.find(id);
  }

  /** Renews a claim; false when another instance has taken the export over. */
  async heartbeat(id: string, instanceId: string): Promise<boolean> {
    const { count } = await this.c.db.export.updateMany({
      where: { id, claimedBy: instanceId, status: 'processing' },
      data: { heartbeatAt: new Date() },
    });
    return count > 0;
  }

  async finish(
    id: string,
    instanceId: string,
    data: Prisma.ExportUpdateManyMutationInput,
  ): Promise<boolean> {
    const { count } = await this.c.db.export.updateMany({
      where: { id, claimedBy: instanceId, status: 'processing' },
      data,
    });
    return count > 0;
  }

  /** The plain CSV cells of the entries of an export's filter, newest first, after `after`. */
  csvCells(
    filter: LogFilter,
    after: Pick<CsvCellsRow, 'at' | 'id'> | undefined,
    take: number,
    includeMetadata: boolean,
  ): Promise<CsvCellsRow[]> {
    const keyset = after
      ? Prisma.sql`AND (timestamp, id) < (${after.at}::timestamptz, ${after.id})`
      : Prisma.empty;
    const sql = Prisma.sql`
      SELECT id, timestamp::text AS at,
        ${Prisma.raw(includeMetadata ? 'metadata::text' : 'NULL::text')} AS metadata, ${Prisma.raw(PLAIN_CELLS_SQL)}
      FROM log_entries
      WHERE ${filterSql(filter)} ${keyset}
      ORDER BY timestamp DESC, id DESC
      LIMIT ${take}`;
    return this.c.sql<CsvCellsRow>(sql.text, sql.values);
  }

  expiredFiles(now: Date): Promise<ExportRow[]> {
    return this.c.db.export.findMany({
      where: { status: 'completed', expiresAt: { lte: now }, fileDeletedAt: null },
      take: 100,
    });
  }

  async markFileDeleted(id: string): Promise<void> {
    await this.c.db.export.updateMany({
      where: { id, fileDeletedAt: null },
      data: { fileDeletedAt: new Date() },
    });
  }

  /** Removes the pieces of every unfinished file of `fileId` (those are `<fileId>.<writer>`). */
  async removePartialPieces(fileId: string): Promise<void> {
    await this.c.sql('DELETE FROM export_chunks WHERE starts_with(export_id, $1)', [`${fileId}.`]);
  }

  async addPiece(fileId: string, n: number, data: Buffer): Promise<void> {
    await this.c.sql('INSERT INTO export_chunks (export_id, n, data) VALUES ($1, $2, $3)', [
      fileId,
      n,
      data,
    ]);
  }

  /** Within a transaction: the pieces of `from` become those of `to`, replacing what `to` had. */
  async movePieces(from: string, to: string): Promise<void> {
    await this.removePieces(to);
    await this.c.sql('UPDATE export_chunks SET export_id = $1 WHERE export_id = $2', [to, from]);
  }

  async piece(fileId: string, n: number): Promise<Buffer | undefined> {
    const [row] = await this.c.sql<{ data: Buffer }>(
      'SELECT data FROM export_chunks WHERE export_id = $1 AND n = $2',
      [fileId, n],
    );
    return row?.data;
  }

  async removePieces(fileId: string): Promise<void> {
    await this.c.sql('DELETE FROM export_chunks WHERE export_id = $1', [fileId]);
  }

  /** What all pieces take together. */
  async piecesBytes(): Promise<number> {
    const [row] = await this.c.sql<{ n: string }>(
      'SELECT coalesce(sum(octet_length(data)), 0)::text AS n FROM export_chunks',
    );
    return Number(row?.n ?? 0);
  }
}
