import type { Export, Prisma } from '@secadmin/db';
import type { Db } from './db.js';

export type ExportRow = Export;

export function insertExport(db: Db, data: Prisma.ExportCreateInput): Promise<ExportRow> {
  return db.export.create({ data });
}

export function findExport(db: Db, id: string): Promise<ExportRow | null> {
  return db.export.findUnique({ where: { id } });
}

/** A transaction-scoped lock on one key's exports. */
export async function lockExportsOfKey(db: Db, keyId: string): Promise<void> {
  await db.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${keyId}))::text`;
}

export function countProcessingExports(db: Db, keyId: string): Promise<number> {
  return db.export.count({ where: { keyId, status: 'processing' } });
}

/**
 * Claims the oldest processing export that nobody has claimed, or whose claimant has
 * been silent since `staleBefore`. SKIP LOCKED: two instances never claim the same one.
 */
export async function claimExport(
  db: Db,
  instanceId: string,
  staleBefore: Date,
): Promise<ExportRow | null> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE exports SET claimed_by = ${instanceId}, heartbeat_at = now()
    WHERE id = (
      SELECT id FROM exports
      WHERE status = 'processing' AND (heartbeat_at IS NULL OR heartbeat_at < ${staleBefore})
      ORDER BY created_at, id
      LIMIT 1
      FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  const id = rows[0]?.id;
  return id === undefined ? null : findExport(db, id);
}

/** Renews a claim; false when another instance has taken the export over. */
export async function heartbeatExport(db: Db, id: string, instanceId: string): Promise<boolean> {
  const { count } = await db.export.updateMany({
    where: { id, claimedBy: instanceId, status: 'processing' },
    data: { heartbeatAt: new Date() },
  });
  return count > 0;
}

export async function finishExport(
  db: Db,
  id: string,
  instanceId: string,
  data: Prisma.ExportUpdateManyMutationInput,
): Promise<boolean> {
  const { count } = await db.export.updateMany({
    where: { id, claimedBy: instanceId, status: 'processing' },
    data,
  });
  return count > 0;
}

export function expiredExportFiles(db: Db, now: Date): Promise<ExportRow[]> {
  return db.export.findMany({
    where: { status: 'completed', expiresAt: { lte: now }, fileDeletedAt: null },
    take: 100,
  });
}

export async function markExportFileDeleted(db: Db, id: string): Promise<void> {
  await db.export.updateMany({
    where: { id, fileDeletedAt: null },
    data: { fileDeletedAt: new Date() },
  });
}
