/**
 * Whether an error says the database could not be reached, rather than that a statement was
 * wrong: the one place that knows the shapes pg and Prisma give a lost or refused connection.
 * Found by stopping PostgreSQL under traffic (test/faults/database-outage.test.ts).
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
