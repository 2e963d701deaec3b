import { openDatabase } from '@secadmin/db';
import { loadConfig } from './config.js';

/** `pnpm db:migrate`: applies pending migrations and exits (the server also does this at start). */
try {
  const config = loadConfig();
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await db.migrate();
    console.log(
      applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`,
    );
  } finally {
    await db.close();
  }
} catch (error) {
  // A refusal (the embedded database in use by a running server, PostgreSQL unreachable) is
  // the operator's to read in one line, not a stack trace.
  console.error(`not migrated: ${(error as Error).message}`);
  process.exitCode = 1;
}
