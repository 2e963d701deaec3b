import type { LogEntry, Prisma } from '@secadmin/db';
import type { Db } from './db.js';

export type LogRow = LogEntry;
export type NewLogRow = Prisma.LogEntryCreateManyInput;

export async function insertLogEntries(db: Db, rows: NewLogRow[]): Promise<void> {
  await db.logEntry.createMany({ data: rows });
}

export function findLogEntry(db: Db, id: string): Promise<LogRow | null> {
  return db.logEntry.findUnique({ where: { id } });
}

export interface LogFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  events?: string[] | undefined;
  actorId?: string | undefined;
  result?: string | undefined;
}

export function logFilterWhere(filter: LogFilter): Prisma.LogEntryWhereInput {
  return {
    ...(filter.from || filter.to
      ? {
          timestamp: {
            ...(filter.from ? { gte: filter.from } : {}),
            ...(filter.to ? { lt: filter.to } : {}),
          },
        }
      : {}),
    ...(filter.events ? { event: { in: filter.events } } : {}),
    ...(filter.actorId !== undefined ? { actorId: filter.actorId } : {}),
    ...(filter.result !== undefined ? { result: filter.result } : {}),
  };
}

/** Newest first by (timestamp, id), strictly after the cursor position. */
export function listLogEntries(
  db: Db,
  filter: LogFilter,
  after: { at: Date; id: string } | undefined,
  take: number,
): Promise<LogRow[]> {
  const where = logFilterWhere(filter);
  return db.logEntry.findMany({
    where: after
      ? {
          AND: [
            where,
            {
              OR: [{ timestamp: { lt: after.at } }, { timestamp: after.at, id: { lt: after.id } }],
            },
          ],
        }
      : where,
    orderBy: [{ timestamp: 'desc' }, { id: 'desc' }],
    take,
  });
}

/** The audit trail outlives the account, but not its email address. */
export function redactActorEmail(db: Db, userId: string, email: string): Promise<number> {
  return db.$executeRaw`
    UPDATE log_entries SET actor_email = NULL, actor_email_redacted = true
    WHERE actor_id = ${userId} OR lower(actor_email) = ${email.toLowerCase()}`;
}

export function countLogEntriesInRange(db: Db, filter: LogFilter): Promise<number> {
  return db.logEntry.count({ where: logFilterWhere(filter) });
}
