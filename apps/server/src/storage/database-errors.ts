import type { Database } from '@secadmin/db';
import { type Conflict, Unavailable } from '../lib/errors.js';

/**
 * Whether an error says the database could not be reached, rather than that a statement was
 * wrong: the one place that knows the shapes pg and Prisma give a lost or refused connection.
 * Found by stopping PostgreSQL under traffic (test/faults/database-outage.serial.test.ts).
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, originalCode, kind, message, cause, errors, meta } = error as {
    code?: unknown;
    originalCode?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  for (const value of [code, originalCode, kind])
    if (typeof value === 'string' && UNREACHABLE_CODES.has(value)) return true;
  if (typeof message === 'string' && UNREACHABLE_MESSAGES.some((re) => re.test(message)))
    return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  // Prisma puts the driver's error under meta.driverAdapterError.cause ({kind, originalCode}).
  if (isDatabaseUnreachable(meta?.driverAdapterError, depth + 1)) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}

const UNREACHABLE_CODES = new Set([
  // Node sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, and class 08 (connection exception)
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  // disk_full: the server cannot store more; nothing the request did wrong, retry later
  '53100',
  // Prisma: can't reach the server, connection timed out, closed; its driver adapters' kinds
  'P1001',
  'P1002',
  'P1017',
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
]);

const UNREACHABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
];

/**
 * A transaction that waited past its bound for a connection, or ran past its time limit and was
 * rolled back (Prisma's P2028; `TransactionEnded` from @secadmin/db for the work's statements
 * after that): nothing of it was kept, and the database is busy rather than the request wrong.
 */
function isTransactionOverTime(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'P2028' || code === 'TransactionEnded';
}

/** What a caller sees of a database that could not be reached or not in time: a 503. */
function unavailable(error: unknown): unknown {
  if (error instanceof Unavailable) return error;
  if (isDatabaseUnreachable(error))
    return new Unavailable('The database is unreachable; retry shortly.', 1, { cause: error });
  if (hasSqlState(error, QUERY_CANCELED))
    return new Unavailable(
      'The database did not finish this request within its time bound and stopped it; ask for less at once (a narrower time range or query), or retry later.',
      1,
      { cause: error },
    );
  if (isTransactionOverTime(error))
    return new Unavailable(
      'The database did not finish this request in time, and kept nothing of it; retry shortly, or send less at once.',
      1,
      { cause: error },
    );
  return error;
}

const rethrow = (error: unknown): never => {
  throw unavailable(error);
};

/**
 * The database as services see it: a statement that cannot reach it throws `Unavailable`
 * (lib/errors.ts), every other error passes unchanged. Inside a transaction the driver's own
 * error reaches the work (which may catch a constraint violation); it is mapped when it leaves
 * the transaction.
 */
export function mapDatabaseErrors<D extends Pick<Database, 'prisma' | 'query' | 'transaction'>>(
  db: D,
): D {
  const prisma = db.prisma.$extends({
    query: {
      $allOperations: ({ args, query }) => query(args).catch(rethrow),
    },
  }) as unknown as D['prisma'];
  return {
    ...db,
    prisma,
    query: (text, params) => db.query(text, params).catch(rethrow),
    transaction: (work, options) => db.transaction(work, options).catch(rethrow),
  };
}

/** PostgreSQL's query_canceled: here, a statement stopped at its `statement_timeout`. */
const QUERY_CANCELED = '57014';

/**
 * Whether an error carries this SQLSTATE: pg's own error, Prisma's (under
 * meta.driverAdapterError), or the cause of the error a transaction ended with.
 */
function hasSqlState(error: unknown, state: string, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, originalCode, cause, meta } = error as {
    code?: unknown;
    originalCode?: unknown;
    cause?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (code === state || originalCode === state) return true;
  return (
    hasSqlState(meta?.driverAdapterError, state, depth + 1) || hasSqlState(cause, state, depth + 1)
  );
}

/** A statement that waited past `lock_timeout` (PostgreSQL's lock_not_available). */
export function isLockTimeout(error: unknown): boolean {
  return hasSqlState(error, '55P03');
}

/**
 * A statement a hot standby cancelled because replaying the primary's changes needed what it
 * read (serialization_failure: a read-only statement on a replica gets it for nothing else).
 */
export function isReplayConflict(error: unknown): boolean {
  return hasSqlState(error, '40001');
}

/** A unique-constraint violation: Prisma's, or PostgreSQL's own from plain SQL. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'P2002' || code === '23505';
}

/** Runs a write; a unique-constraint violation becomes the given 409, whoever raced it. */
export async function conflictOnDuplicate<T>(
  conflict: () => Conflict,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict();
    throw error;
  }
}
