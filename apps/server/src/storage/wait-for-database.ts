import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@secadmin/db';
import type { Logger } from 'pino';

const RETRY_EVERY_MS = 500;

/**
 * At start, PostgreSQL may still be coming up (containers start in any order): retry it for
 * `dbConnectTimeoutSeconds`, then give up with a message that names the server, never its
 * credentials.
 */
export async function waitForDatabase(
  db: Database,
  config: { databaseUrl: string | undefined; dbConnectTimeoutSeconds: number },
  logger: Logger,
): Promise<void> {
  const deadline = Date.now() + config.dbConnectTimeoutSeconds * 1000;
  let logged = false;
  for (;;) {
    try {
      await db.ping();
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (Date.now() >= deadline) {
        throw new Error(
          `PostgreSQL at ${where(config.databaseUrl)} did not answer within ${config.dbConnectTimeoutSeconds} s (SECADMIN_DB_CONNECT_TIMEOUT_S): ${reason}`,
        );
      }
      if (!logged) {
        logger.warn(
          {
            database: where(config.databaseUrl),
            reason,
            timeoutSeconds: config.dbConnectTimeoutSeconds,
          },
          'PostgreSQL is not reachable yet; retrying',
        );
        logged = true;
      }
      await sleep(RETRY_EVERY_MS);
    }
  }
}

/** host:port/database of a connection URL: what an operator needs, without user or password. */
function where(url: string | undefined): string {
  if (!url) return 'DATABASE_URL';
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}:${port || 5432}${pathname}`;
}
