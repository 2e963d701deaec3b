import { loadConfig } from './config.js';
import { boundHeapGrowth } from './heap-growth.js';
import { createLogger } from './logger.js';
import { SHUTDOWN_BUDGET_MS, startServer } from './server.js';

/** docs/operations.md allows 10 s from SIGTERM to exit; a second left for a blocked event loop. */
const HARD_EXIT_MS = SHUTDOWN_BUDGET_MS + 1_000;

function configOrExit() {
  try {
    return loadConfig();
  } catch (error) {
    // Before there is a logger: one plain line, no stack trace.
    console.error(`secadmin could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}

// Files this process creates are its own (secrets, keys, exports): no one else may read them.
process.umask(0o077);
boundHeapGrowth();
const config = configOrExit();
const logger = createLogger(config.logLevel);

try {
  const server = await startServer(config, logger);
  logger.info(
    {
      url: server.url,
      database: config.databaseUrl ? 'postgres' : 'embedded postgres',
      docs: `${server.url}/docs`,
    },
    'secadmin listening',
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // close() bounds each of its steps; this is for what no bound foresees.
    const timer = setTimeout(() => {
      logger.error(`shutdown took longer than ${HARD_EXIT_MS / 1000} s; exiting`);
      process.exit(1);
    }, HARD_EXIT_MS);
    timer.unref();
    await server.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
} catch (error) {
  logger.fatal(
    { err: error instanceof Error ? { message: error.message, name: error.name } : error },
    'secadmin could not start',
  );
  process.exit(1);
}
