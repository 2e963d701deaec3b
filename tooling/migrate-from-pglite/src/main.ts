#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateFromPglite } from './migrate.js';

const USAGE =
  'usage: pnpm db:migrate-from-pglite --data-dir <dir>   (the SECADMIN_DATA_DIR of the stopped service; default ./data)';

let dataDir: string;
try {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } } });
  dataDir = resolve(values['data-dir'] ?? process.env.SECADMIN_DATA_DIR ?? './data');
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(64);
}

const log = {
  info: (message: string) => console.log(message),
  warn: (details: object, message: string) => console.warn(message, details),
  error: (details: object, message: string) => console.error(message, details),
};

try {
  console.log(`moving the PGlite database of ${dataDir} to the embedded PostgreSQL`);
  const report = await migrateFromPglite(dataDir, log);
  const total = [...report.rows.values()].reduce((a, b) => a + b, 0);
  console.log(
    `done: ${total} rows in ${report.rows.size} tables, in the cluster ${report.cluster}; the PGlite files are kept in ${report.keptAside} (delete them once the service runs well)`,
  );
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exit(1);
}
